// ISO 4217 currency codes, as far as the runtime knows them.
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Whether an upper-case three-letter code is a currency the runtime knows. */
export function isKnownCurrency(code: string): boolean {
  return code.length === 3 && CURRENCIES.has(code);
}
