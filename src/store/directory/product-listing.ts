// A page of the directory's listing: the products matching a search, in its sort, from where the last page ended.
import type { Queryable } from '../db.js';
import type { Freshness } from '../freshness.js';
import { RATES_VERSION } from '../rates.js';
import { conditionsOf, type Conditions } from './conditions.js';
import { productColumns, toListedProduct, type ListedProduct } from './listed-product.js';
import { hostIndexed, rareTogetherWalkBound, walkIndexed, wordsAreCommon } from './plan-choice.js';
import type { Keyset, ProductSearch } from './search.js';
import {
  NATIVE_PRICE_KEY,
  PRICE_PER_SORT_KEYS,
  segmented,
  SORT_KEY,
  UNPRICED_KEY,
  UNPRICED_SORT_KEY,
  type SortKey,
} from './sort-keys.js';

/**
 * One page of listed products matching every given filter, in (sort key, id) order; `after` continues where
 * the previous page ended, so pages never overlap or skip a row even while the order has ties.
 */
export async function searchProducts(
  db: Queryable,
  search: ProductSearch,
  options: { ratesVersion?: boolean } = {},
): Promise<{ products: ListedProduct[]; next: Keyset | null; ratesVersion?: string }> {
  const filters = await conditionsOf(db, search);
  // A query of only punctuation matches nothing rather than everything.
  if (filters === null) return { products: [], next: null };
  // The rates' version rides along with the first rows read (a page with none reads no version).
  const version: VersionRead = { wanted: options.ratesVersion === true };
  // PostgreSQL guesses that a word it has no statistics for matches 0.5 % of the rows (a prefix 2 %, while its
  // statistics hold fewer than a hundred common words), and then walks the sort index looking for it: for a rare word
  // that reads the whole listing. Unless every word is known to be common, the sort is put on an expression no index
  // covers (`unwalkable`: same values, same order), so that the text index leads and only the matches are sorted.
  // Common words keep the walk, bounded, which finds a page of them in a few rows.
  const words = filters.wordsDecidingPlan;
  const textLeads = words.length > 0 && !(await wordsAreCommon(db, words));
  const listing = { db, search, textLeads, version };
  const pageResult = (rows: Record<string, unknown>[], more: boolean) => ({
    ...resultOf(rows, more, search.freshness),
    ...version.read,
  });

  // Plans that can be bought (or whose stock is not tracked) first, then, unless in_stock leaves them out, the
  // sold-out ones: two segments, each in the sort's order, the first walked in the sort indexes (skipping the few
  // sold-out rows), the second in the small indexes of sold-out plans alone (migration 061).
  const inSoldOut = search.after?.soldOut === true;
  let available: Segment = { rows: [], more: false };
  if (!inSoldOut) {
    const availableOnly = filters.copy();
    if (search.inStock !== true) availableOnly.served(AVAILABLE);
    available = await segmentOf(listing, availableOnly, search.limit, search.after);
    if (available.more || search.inStock === true) return pageResult(available.rows, available.more);
  }
  const soldOutOnly = filters.copy();
  soldOutOnly.served(SOLD_OUT);
  const soldOut = await segmentOf(
    listing,
    soldOutOnly,
    search.limit - available.rows.length,
    inSoldOut ? search.after : null,
  );
  return pageResult([...available.rows, ...soldOut.rows], soldOut.more);
}

/** A plan that can be bought, or whose stock is not tracked. */
const AVAILABLE = 'p.stock IS DISTINCT FROM 0';
/** A sold-out plan: the predicate of migration 060's indexes. */
const SOLD_OUT = 'p.stock = 0';

interface Segment {
  rows: Record<string, unknown>[];
  more: boolean;
}

interface Listing {
  db: Queryable;
  search: ProductSearch;
  textLeads: boolean;
  version: VersionRead;
}

/** Up to `limit` rows of the search within `filters` (one stock segment), from `after`, and whether there are more. */
async function segmentOf(
  { db, search, textLeads, version }: Listing,
  filters: Conditions,
  limit: number,
  after: Keyset | null,
): Promise<Segment> {
  const words = filters.wordsDecidingPlan;
  // A host's listing is read by the host and sorted (unless in id order or by its base price, which indexes of the
  // host's serve): the page is chosen among narrow rows, and only the page's rows are read whole, where PostgreSQL would
  // sort every row of the host whole. Elsewhere a sort index is walked (every sort has its own, spec sorts included:
  // migration 082), or a text search's few matches sorted, where reading the page's rows a second time would cost more
  // than it saves.
  const pageOf = async (
    conditions: Conditions,
    key: SortKey,
    page: Pick<ProductSearch, 'order' | 'limit'>,
    textLeads: boolean,
    after: Keyset | null,
  ) => {
    const hostSorts = search.hostSlug !== undefined && !hostIndexed(key, textLeads);
    const how = { textLeads, narrowSort: hostSorts };
    if (textLeads || search.hostSlug !== undefined || words.length === 0 || !walkIndexed(key, search)) {
      return readPage(db, conditions, key, page, how, after, version);
    }
    // Words each common may still be rare together ("ryzen xeon": a tenth of the products each, none both), and the
    // statistics cannot tell: the sort index is walked for at most the rows a page of matches as common as a common
    // word would fill, and a page not filled within them is read again with the words leading. Both are exact.
    const walked = await readPage(
      db,
      conditions.copy(),
      key,
      page,
      { ...how, walkAtMost: rareTogetherWalkBound(page.limit) },
      after,
      version,
    );
    return walked.more ? walked : readPage(db, conditions, key, page, { ...how, textLeads: true }, after, version);
  };
  const page = { order: search.order, limit };
  if (!segmented(search.sort)) return pageOf(filters, SORT_KEY[search.sort], page, textLeads, after);

  // Priced products first, then (unless a price limit leaves them out) the unpriced ones: two index walks in the
  // same direction, where one ORDER BY ... NULLS LAST would need an index per order. A spec sort is the same, with
  // the products that do not give the spec as its second segment. Across currencies the price is the EUR one, and a
  // product without it (no rate for its currency, or no price) is in the second segment; within one currency
  // (`currency`), the monthly price as sent.
  const key = search.sort === 'price' && search.currency !== undefined ? NATIVE_PRICE_KEY : SORT_KEY[search.sort];
  const excludesUnknown =
    search.sort === 'price'
      ? search.maxMonthlyPrice !== undefined || search.maxBasePrice !== undefined
      : (search.ranges ?? []).some((range) => range.key === search.sort);
  const inUnpriced = after !== null && after.key === UNPRICED_KEY;
  let priced: Segment = { rows: [], more: false };
  if (!inUnpriced) {
    const pricedOnly = filters.copy();
    pricedOnly.served(`${key.expression} IS NOT NULL`);
    priced = await pageOf(pricedOnly, key, page, textLeads, after);
    // A price drop needs a price: sorted by the prices as sent, the unpriced segment has none (sorted by the EUR
    // prices, it also holds the priced products whose currency has no rate).
    const noneUnpriced = search.sort === 'price' && search.priceDrops.only && key === NATIVE_PRICE_KEY;
    if (priced.more || excludesUnknown || noneUnpriced) return priced;
  }
  const unpricedOnly = filters.copy();
  unpricedOnly.served(PRICE_PER_SORT_KEYS.has(key) ? withoutPricePer(key) : `${key.expression} IS NULL`);
  const rest = { ...page, limit: limit - priced.rows.length };
  const unpriced = await pageOf(unpricedOnly, UNPRICED_SORT_KEY, rest, textLeads, inUnpriced ? after : null);
  return { rows: [...priced.rows, ...unpriced.rows], more: unpriced.more };
}

/**
 * The products without a price per resource, as a condition PostgreSQL takes to hold for a third of the rows (a range
 * of an expression it has no statistics for) rather than for 0.5 % (`IS NULL` of one): it then walks them in id order,
 * where it would look them all up in the figure's own index and sort them, which in a category whose family has no
 * such spec (web hosting gives no RAM) is every product of it (test/store/search-plans.test.ts). A figure is never
 * negative: the two conditions hold for the same rows.
 */
function withoutPricePer(key: SortKey): string {
  return `coalesce(${key.expression}, -1) < 0`;
}

/** Whether a search reads the rates' version with its rows, and the one it read. */
interface VersionRead {
  wanted: boolean;
  read?: { ratesVersion: string };
}

/**
 * Up to `limit` rows (and whether there are more) of one segment of the listing, in (sort key, id) order. A limit
 * of 0 only tells whether the segment has a row. Until the rates' version is read, it is asked for when `version` wants it.
 * `textLeads`: sorted on an expression no index covers (see searchProducts); `narrowSort`: the page is chosen among the
 * matches' ids and sort keys, and then its rows are read whole, so that sorting many matches moves narrow rows.
 */
async function readPage(
  db: Queryable,
  conditions: Conditions,
  key: SortKey,
  search: Pick<ProductSearch, 'order' | 'limit'>,
  how: { textLeads: boolean; narrowSort: boolean; walkAtMost?: number },
  after: Keyset | null,
  version: VersionRead,
): Promise<{ rows: Record<string, unknown>[]; more: boolean }> {
  const direction = search.order === 'asc' ? 'ASC' : 'DESC';
  const where = [...conditions.where];
  const walk = [...conditions.walk];
  if (after !== null) {
    const comparison = search.order === 'asc' ? '>' : '<';
    const cursor =
      key.key === undefined
        ? `(${key.expression}, p.id) ${comparison} (${conditions.param(after.key)}${key.cast}, ${conditions.param(after.id)}::text)`
        : `p.id ${comparison} ${conditions.param(after.id)}::text`;
    where.push(cursor);
    walk.push(cursor);
  }
  const withVersion = version.wanted && version.read === undefined;
  const columns = `${productColumns(conditions.since)}, ${key.key ?? `(${key.expression})::text`} AS sort_key
       ${withVersion ? `, ${RATES_VERSION} AS rates_version` : ''}`;
  // A bounded walk reads the sort index in a subquery PostgreSQL cannot push the other conditions into: at most
  // walkAtMost rows, fewer once the page is found, since its order (the key it names) is the page's.
  const source =
    how.walkAtMost === undefined
      ? 'products p'
      : `(SELECT p.*, ${key.expression} AS walk_key FROM products p WHERE ${walk.join(' AND ')}
          ORDER BY ${key.expression} ${direction}, p.id ${direction} LIMIT ${how.walkAtMost}) AS p`;
  const sortedBy = how.walkAtMost !== undefined ? 'p.walk_key' : how.textLeads ? key.unwalkable : key.expression;
  const order = `ORDER BY ${sortedBy} ${direction}, p.id ${direction}`;
  // A page's size is written in (a whole number the query checked): planned for a parameter, PostgreSQL expects a tenth
  // of the rows, finds the plan it would keep dearer than planning for the values, and plans a kept statement afresh
  // every time.
  const limit = `LIMIT ${Number.isInteger(search.limit) ? search.limit + 1 : conditions.param(search.limit + 1)}`;
  const matches = `FROM ${source} JOIN hosts h ON h.id = p.host_id WHERE ${where.join(' AND ')}`;
  const { rows } = await db.query(
    how.narrowSort
      ? `SELECT ${columns}
         FROM (SELECT p.host_id, p.id ${matches} ${order} ${limit}) AS page
           JOIN products p ON p.host_id = page.host_id AND p.id = page.id JOIN hosts h ON h.id = p.host_id
         ${order}`
      : `SELECT ${columns} ${matches} ${order} ${limit}`,
    conditions.params,
    conditions.valuesSteerPlan ? undefined : { prepared: true },
  );
  const read = rows[0]?.rates_version;
  if (withVersion && typeof read === 'string') version.read = { ratesVersion: read };
  return { rows: rows.slice(0, search.limit), more: rows.length > search.limit };
}

function resultOf(
  rows: Record<string, unknown>[],
  more: boolean,
  freshness: Freshness,
): { products: ListedProduct[]; next: Keyset | null } {
  const last = rows.at(-1);
  const next: Keyset | null = more && last ? { key: String(last.sort_key), id: String(last.id) } : null;
  if (next !== null && last?.stock !== null && Number(last?.stock) === 0) next.soldOut = true;
  return { products: rows.map((row) => toListedProduct(row, freshness)), next };
}
