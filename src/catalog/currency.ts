// ISO 4217 currency codes, as far as the runtime knows them.
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** A currency code as a client may send it: three letters, any case. */
export const CURRENCY_CODE_PATTERN = '^[A-Za-z]{3}$';
/** A currency code as the directory keeps and shows it: upper case. */
export const STORED_CURRENCY_PATTERN = '^[A-Z]{3}$';

/** Whether an upper-case three-letter code is a currency the runtime knows. */
export function isKnownCurrency(code: string): boolean {
  return code.length === 3 && CURRENCIES.has(code);
}
