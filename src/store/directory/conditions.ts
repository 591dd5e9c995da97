// The WHERE clause of a directory search, built from its filters and words, with its parameters.
import { facet } from '../../catalog/derived.js';
import { placeOf } from '../../catalog/gazetteer.js';
import { searchTerms, termQuery, type SearchTerm } from '../../catalog/search-terms.js';
import type { Queryable } from '../db.js';
import type { Freshness } from '../freshness.js';
import { droppedSince } from '../price-history.js';
import { specExpression } from './listed-product.js';
import { keptNamedWords, namesMatching } from './named-words.js';
import type { ProductSearch } from './search.js';

/** The WHERE clause of a search as it grows, with its parameters. */
export class Conditions {
  readonly where: string[] = [`p.status = 'active'`, `h.status = 'active'`];
  /**
   * Those of `where` a listing's sort index serves by itself (status, category, a segment's null key, the cursor): all
   * a bounded walk of it reads by (readPage), the other conditions filtering what it walked.
   */
  readonly walk: string[] = [`p.status = 'active'`];
  readonly params: unknown[] = [];
  /**
   * Whether the values decide the best plan: words, facets, spec ranges, a currency or a price limit match anything
   * from a handful of rows to most of them. Without them (a category's or a host's listing, in any sort, on any page)
   * one sort index serves every value, and the statement is kept prepared (planning cost more than running it).
   */
  valuesSteerPlan = false;
  /**
   * The words whose statistics decide whether the text index leads (searchProducts): the plain words and the sizes'
   * tokens. A size is as common as its token (its number alone is common, its unit may be in no product's words); a
   * place is matched by its facet too, whose statistics the planner has.
   */
  wordsDecidingPlan: string[] = [];
  #dropsSince = '';
  #sinceParam: string | null = null;

  /** The day price drops are shown since (YYYY-MM-DD); a parameter only once a statement refers to it. */
  set dropsSince(day: string) {
    this.#dropsSince = day;
    this.#sinceParam = null;
  }

  /** The parameter of the day price drops are shown since. */
  get since(): string {
    return (this.#sinceParam ??= this.param(this.#dropsSince));
  }

  /** A condition the sort index serves by itself: in `where`, and in what a bounded walk reads by. */
  served(condition: string): void {
    this.where.push(condition);
    this.walk.push(condition);
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  copy(): Conditions {
    const copy = new Conditions();
    copy.where.splice(0, copy.where.length, ...this.where);
    copy.walk.splice(0, copy.walk.length, ...this.walk);
    copy.params.push(...this.params);
    copy.#dropsSince = this.#dropsSince;
    copy.#sinceParam = this.#sinceParam;
    copy.valuesSteerPlan = this.valuesSteerPlan;
    copy.wordsDecidingPlan = this.wordsDecidingPlan;
    return copy;
  }
}

/**
 * The WHERE clause of a search's filters (freshness and price drops included); null when it can match nothing (a text
 * of only punctuation).
 */
export async function conditionsOf(
  db: Queryable,
  search: Omit<ProductSearch, 'sort' | 'order' | 'limit' | 'after'>,
): Promise<Conditions | null> {
  const filters = new Conditions();
  const { where } = filters;
  if (search.category !== undefined) filters.served(`p.category = ${filters.param(search.category)}`);
  // The host's id, not its slug, is what the products' host indexes lead with: read once, before the walk (a
  // condition on the joined host's slug left PostgreSQL to sort the host's products after the join).
  if (search.hostSlug !== undefined)
    where.push(`p.host_id = (SELECT id FROM hosts WHERE slug = ${filters.param(search.hostSlug)})`);
  const facets = facetsOf(search);
  if (facets.length > 0) where.push(`p.facets @> ${filters.param(JSON.stringify(facets))}::jsonb`);
  for (const range of search.ranges ?? []) {
    if (range.min !== undefined)
      where.push(`${specExpression(range.key)} >= ${filters.param(String(range.min))}::numeric`);
    if (range.max !== undefined)
      where.push(`${specExpression(range.key)} <= ${filters.param(String(range.max))}::numeric`);
  }
  // The sold-out plans have a segment of their own (searchProducts), which this leaves empty.
  if (search.inStock === true) filters.served('p.stock IS DISTINCT FROM 0');
  if (search.diskType !== undefined) where.push(`p.spec_values ->> 'disk_type' = ${filters.param(search.diskType)}`);
  if (search.currency !== undefined) where.push(`p.currency = ${filters.param(search.currency)}`);
  if (search.maxMonthlyPrice !== undefined)
    where.push(`p.monthly_price <= ${filters.param(String(search.maxMonthlyPrice))}::numeric`);
  if (search.maxBasePrice !== undefined)
    where.push(`p.base_monthly_price <= ${filters.param(String(search.maxBasePrice))}::numeric`);
  if (!search.freshness.includeStale) where.push(confirmedWithin(search.freshness, filters));
  filters.dropsSince = search.priceDrops.since;
  if (search.priceDrops.only) where.push(droppedSince(filters.since));
  if (search.text !== undefined) {
    const terms = searchTerms(search.text);
    if (terms.length === 0) return null;
    await matchTerms(db, filters, terms);
    filters.wordsDecidingPlan = terms.flatMap((term) =>
      term.facet !== undefined ? [] : term.token !== undefined ? [term.token] : term.words,
    );
  }
  filters.valuesSteerPlan = where.length > plainConditions(search);
  return filters;
}

/**
 * Confirmed within the freshness limit. The limit is written as the database's clock less the configuration's age in
 * seconds: the same text on every request, which PostgreSQL can estimate in a plan kept for every value. As a
 * parameter, it is estimated to hold for a third of the hosts, and a category's kept listing is planned afresh every
 * time.
 */
export function confirmedWithin(freshness: Freshness, filters: Conditions): string {
  const seconds = freshness.staleAfterDays * 86_400;
  return Number.isFinite(seconds)
    ? `h.confirmed_at >= now() - interval '${seconds} seconds'`
    : `h.confirmed_at >= ${filters.param(freshness.staleBefore.toISOString())}::timestamptz`;
}

/**
 * How many conditions a search has that leave the plan to the sort index: status, category, host, in stock and
 * freshness.
 */
function plainConditions(search: Omit<ProductSearch, 'sort' | 'order' | 'limit' | 'after'>): number {
  return (
    2 +
    Number(search.inStock === true) +
    Number(search.category !== undefined) +
    Number(search.hostSlug !== undefined) +
    Number(!search.freshness.includeStale)
  );
}

/** The facets a search's location, country and feature filters look for (catalog/derived.ts). */
export function facetsOf(search: Pick<ProductSearch, 'location' | 'feature' | 'country'>): string[] {
  const facets: string[] = [];
  if (search.location !== undefined) {
    const place = placeOf(search.location);
    facets.push(
      place === null
        ? facet.location(search.location)
        : place.city === null
          ? facet.country(place.country)
          : facet.place(place.key),
    );
  }
  if (search.country !== undefined) facets.push(facet.country(search.country));
  if (search.feature !== undefined) facets.push(facet.feature(search.feature));
  return facets;
}

/**
 * Each term (catalog/search-terms.ts) must match the product's own words (name, description, features, locations,
 * specs: search_text) or facets, or, a word alone, its provider's name or its category's label. Provider names and
 * labels are read from their tables (kept LISTING_FIGURES_TTL_MS), never copied into the products: renaming a
 * provider changes what finds it at once.
 */
async function matchTerms(db: Queryable, filters: Conditions, terms: SearchTerm[]): Promise<void> {
  const names = await keptNamedWords(db);
  for (const term of terms) {
    const alternatives = [`p.search_text @@ to_tsquery('simple', ${filters.param(termQuery(term))})`];
    if (term.facet !== undefined)
      alternatives.push(`p.facets @> ${filters.param(JSON.stringify([term.facet]))}::jsonb`);
    if (term.words.length === 1 && term.token === undefined) {
      const { hosts, categories } = namesMatching(names, term.words[0]!);
      if (hosts.length > 0) alternatives.push(`p.host_id = ANY (${filters.param(hosts)}::bigint[])`);
      if (categories.length > 0) alternatives.push(`p.category = ANY (${filters.param(categories)}::text[])`);
    }
    filters.where.push(alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' OR ')})`);
  }
}
