// ISO 4217 currency codes, as far as the runtime knows them.
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** A currency code as a client may send it: three letters, any case. */
export const CURRENCY_CODE_PATTERN = '^[A-Za-z]{3}$';
/** A currency code as the directory keeps and shows it: upper case. */
export const STORED_CURRENCY_PATTERN = '^[A-Z]{3}$';

const CURRENCY_CODE = new RegExp(CURRENCY_CODE_PATTERN);

/** Whether a string has the shape of a currency code (three letters, any case); whether it is one is isKnownCurrency's. */
export function isCurrencyCode(code: string): boolean {
  return CURRENCY_CODE.test(code);
}

/** Whether an upper-case three-letter code is a currency the runtime knows. */
export function isKnownCurrency(code: string): boolean {
  return code.length === 3 && CURRENCIES.has(code);
}
