// Every size limit of a synced catalogue (contract section 4), shared by the validator and the TypeBox schema.
// Lengths count Unicode code points, as JSON Schema's minLength/maxLength do.

/** Default for MAX_PRODUCTS; the configured value is passed to the validator at run time. */
export const DEFAULT_MAX_PRODUCTS = 50_000;

export const NAME_MAX_LENGTH = 200;
export const EXTERNAL_ID_MAX_LENGTH = 255;
export const DESCRIPTION_MAX_LENGTH = 20_000;

export const SPECS_MAX_KEYS = 100;
export const SPEC_KEY_MAX_LENGTH = 100;
export const SPEC_VALUE_MAX_LENGTH = 1_000;

export const PRICING_TIERS_MAX_ITEMS = 20;
/** a tier's period, as the billing system names it */
export const PERIOD_MAX_LENGTH = 50;

/** features and datacenter_locations */
export const LIST_MAX_ITEMS = 100;
export const LIST_ITEM_MAX_LENGTH = 200;

/** price, setup_fee and every tier price; the minimum is 0 */
export const PRICE_MAX = 1_000_000_000;

/** a contract duration as sent; recognised ones are stored in ISO form, any other as sent */
export const CONTRACT_DURATION_MAX_LENGTH = 100;

/** n in a contract duration such as P<n>M or "<n> months" */
export const CONTRACT_DURATION_MIN_N = 1;
export const CONTRACT_DURATION_MAX_N = 120;

/** errors listed in one 422 answer; more set `truncated` */
export const MAX_ERRORS_LISTED = 100;

/** stock: units a provider can still sell; the minimum is 0 (sold out) */
export const STOCK_MAX = 1_000_000_000;

/** a plan with at most this many units left is shown as "Only N left" */
export const FEW_LEFT_MAX = 5;
