// The content columns of `products`, derived from the table of product fields (catalog/product-fields.ts): their
// names, their types as json_to_recordset reads them, how a row selects and reads them, and their COPY text. The
// columns derived from the content (catalog/derived.ts) follow them in every write, so that a sync stores both in
// the same statement.
import { derivedOf, type Derived } from '../catalog/derived.js';
import {
  PRODUCT_FIELD_NAMES,
  PRODUCT_FIELDS,
  type Content,
  type ProductField,
  type Storage,
} from '../catalog/product-fields.js';
import type { PricingTier } from '../catalog/types.js';
import type { Row } from './db.js';
import { jsonOrNull, numberOrNull } from './rows.js';

/** How each storage is kept in PostgreSQL, selected, read back and written by COPY. */
interface Column {
  /** the column's type, as json_to_recordset reads the products' JSON */
  type: string;
  /** the select expression of column `c` (numeric goes out as float8: the API speaks JSON numbers) */
  select(c: string): string;
  read(value: unknown): unknown;
  copy(value: never): string;
}

const NULL = '\\N';

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text value in COPY text format: backslash, tab and line breaks escaped. */
export function copyText(value: string): string {
  return COPY_SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}

/** JSON in COPY text format: JSON.stringify never emits raw tabs or line breaks, only backslashes need doubling. */
function escapeJsonForCopy(json: string): string {
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
}

/** Strings JSON.stringify would escape: quotes, backslashes, control characters, surrogates (lone ones become \u). */
const JSON_SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;

function jsonString(s: string): string {
  return JSON_SPECIAL.test(s) ? JSON.stringify(s).slice(1, -1) : s;
}

// Lists of strings and pricing tiers are written by hand: JSON.stringify's per-call cost dominated these small values.
function copyStringList(list: readonly string[] | null): string {
  if (list === null) return NULL;
  let json = '[';
  for (let i = 0; i < list.length; i++) json += (i === 0 ? '"' : ',"') + jsonString(list[i]!) + '"';
  return escapeJsonForCopy(json + ']');
}

/** Prices are finite numbers and canonical periods plain words, whose JavaScript and JSON spellings are the same. */
function copyTiers(tiers: readonly PricingTier[] | null): string {
  if (tiers === null) return NULL;
  let json = '[';
  for (let i = 0; i < tiers.length; i++) {
    const { period, price, canonical_period: canonical } = tiers[i]!;
    json +=
      (i === 0 ? '{"period":"' : ',{"period":"') +
      jsonString(period) +
      '","price":' +
      price +
      ',"canonical_period":' +
      (canonical === null ? 'null' : '"' + canonical + '"') +
      '}';
  }
  return escapeJsonForCopy(json + ']');
}

const plain = (c: string) => c;

const COLUMNS: Readonly<Record<Storage, Column>> = {
  text: {
    type: 'text',
    select: plain,
    read: (value) => (value === null || value === undefined ? null : String(value)),
    copy: (value: string | null) => (value === null ? NULL : copyText(value)),
  },
  decimal: {
    type: 'numeric',
    select: (c) => `${c}::float8 AS ${c.slice(c.indexOf('.') + 1)}`,
    read: numberOrNull,
    copy: (value: number | null) => (value === null ? NULL : String(value)),
  },
  specs: {
    type: 'json',
    select: plain,
    read: jsonOrNull,
    copy: (value: Record<string, string> | null) => (value === null ? NULL : escapeJsonForCopy(JSON.stringify(value))),
  },
  tiers: { type: 'json', select: plain, read: jsonOrNull, copy: copyTiers },
  list: { type: 'jsonb', select: plain, read: jsonOrNull, copy: copyStringList },
  count: {
    type: 'integer',
    select: plain,
    read: numberOrNull,
    copy: (value: number | null) => (value === null ? NULL : String(value)),
  },
};

const FIELDS = PRODUCT_FIELD_NAMES.map((name) => ({ name, column: COLUMNS[PRODUCT_FIELDS[name].storage] }));

/** The columns derived from the content, with their types: written with it, never sent by a host. */
const DERIVED: readonly { name: keyof Derived; type: string }[] = [
  { name: 'spec_values', type: 'jsonb' },
  { name: 'facets', type: 'jsonb' },
  { name: 'search_extra', type: 'text' },
  { name: 'derived_version', type: 'integer' },
];

/** The derived columns as json_to_recordset reads them. */
export const DERIVED_RECORD = DERIVED.map(({ name, type }) => `${name} ${type}`).join(', ');

/** `spec_values = x.spec_values, …`: every derived column set from the record `x`. */
export const SET_DERIVED = DERIVED.map(({ name }) => `${name} = x.${name}`).join(', ');

/** The content columns in the table's order, then the derived ones: `name, category, …, derived_version`. */
export const CONTENT_COLUMNS = [...PRODUCT_FIELD_NAMES, ...DERIVED.map(({ name }) => name)].join(', ');

/** The content and derived columns with their types, as json_to_recordset reads them from the products' JSON. */
export const CONTENT_RECORD = `${FIELDS.map(({ name, column }) => `${name} ${column.type}`).join(', ')}, ${DERIVED_RECORD}`;

/** `name = x.name, …`: every content and derived column set from the record `x`. */
export const SET_CONTENT = `${FIELDS.map(({ name }) => `${name} = x.${name}`).join(', ')}, ${SET_DERIVED}`;

/** A product's content with what is derived from it, as json_to_recordset reads it (CONTENT_RECORD). */
export function contentRecord(content: Content): Content & Derived {
  return { ...content, ...derivedOf(content) };
}

/** The content columns of the products row `p`, as contentOfRow reads them. */
export const SELECT_CONTENT = FIELDS.map(({ name, column }) => column.select(`p.${name}`)).join(', ');

/** A row's content columns (selected as SELECT_CONTENT) as the API shows them. */
export function contentOfRow(row: Row): Content {
  const content: Record<string, unknown> = {};
  for (const { name, column } of FIELDS) content[name] = column.read(row[name]);
  return content as Content;
}

const COPY_NAMES: readonly ProductField[] = PRODUCT_FIELD_NAMES;
const COPY_TEXT = FIELDS.map(({ column }) => column.copy as (value: unknown) => string);

/** A product's content and derived columns in COPY text format, tab-separated, in CONTENT_COLUMNS order. */
export function copyContent(content: Content): string {
  let text = COPY_TEXT[0]!(content[COPY_NAMES[0]!]);
  for (let i = 1; i < COPY_TEXT.length; i++) text += '\t' + COPY_TEXT[i]!(content[COPY_NAMES[i]!]);
  const derived = derivedOf(content);
  return (
    text +
    '\t' +
    escapeJsonForCopy(JSON.stringify(derived.spec_values)) +
    '\t' +
    copyStringList(derived.facets) +
    '\t' +
    copyText(derived.search_extra) +
    '\t' +
    derived.derived_version
  );
}
