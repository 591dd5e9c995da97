// A plan's cheaper alternatives: listed plans of other providers in its category that cost less per month (in EUR,
// across currencies) and give at least its RAM, cores and disk, where the plan states them; cheapest first.
import type { Queryable } from '../db.js';
import type { Freshness } from '../freshness.js';
import { Conditions, confirmedWithin } from './conditions.js';
import { productColumns, specExpression, toListedProduct, type ListedProduct } from './listed-product.js';

/** The specs an alternative must give at least as much of, where the plan states them. */
const AT_LEAST = ['ram_gb', 'cpu_cores', 'disk_gb'] as const;

/** The most alternatives one answer lists. */
export const ALTERNATIVES_MAX = 20;

/**
 * Rows walked each way in the category's price index (migration 041) at most: from the cheapest plan of the category
 * up, and from just below the plan's price down, where plans with at least its specs are most likely to be. A category
 * with at most twice this many cheaper plans is searched whole; beyond, the alternatives are found among these, in a
 * time bounded however large the directory is.
 */
export const ALTERNATIVES_WALK = 1000;

/**
 * Up to `limit` cheaper alternatives to `plan`, cheapest first (by the EUR price, then id), from active providers
 * whose listing is not stale. None for a plan without a EUR price.
 *
 * The walk from the cheapest up stops at the `limit`-th alternative it meets: every plan it has not reached costs more,
 * so those are the cheapest of all (a plan with common specs needs a few dozen rows). Only when it meets fewer are the
 * plans just below the price walked too, those the first walk did not reach, and their cheapest follow.
 */
export async function cheaperAlternatives(
  db: Queryable,
  plan: ListedProduct,
  options: { freshness: Freshness; dropsSince: string; limit: number },
): Promise<ListedProduct[]> {
  if (plan.base_monthly_price === null) return [];
  const limit = Math.trunc(options.limit);
  const fromCheapest = await alternativesOfWalk(db, plan, options, 'up', limit);
  if (fromCheapest.length >= limit) return fromCheapest;
  return [...fromCheapest, ...(await alternativesOfWalk(db, plan, options, 'down', limit - fromCheapest.length))];
}

/**
 * The cheapest `limit` alternatives among ALTERNATIVES_WALK cheaper plans of the category walked `up` from the
 * cheapest, or `down` from the plan's price, past where the walk up ends (none when it reached the price).
 */
async function alternativesOfWalk(
  db: Queryable,
  plan: ListedProduct,
  options: { freshness: Freshness; dropsSince: string },
  way: 'up' | 'down',
  limit: number,
): Promise<ListedProduct[]> {
  const conditions = new Conditions();
  const category = conditions.param(plan.category);
  const price = conditions.param(String(plan.base_monthly_price));
  const cheaper = `p.status = 'active' AND p.category = ${category} AND p.base_monthly_price < ${price}::numeric`;
  const walk = (direction: 'ASC' | 'DESC', limitOrOffset: string) =>
    `ORDER BY p.base_monthly_price ${direction}, p.id ${direction} ${limitOrOffset}`;
  const pastWalkUp =
    way === 'down'
      ? ` AND (p.base_monthly_price, p.id) > (SELECT p.base_monthly_price, p.id FROM products p WHERE ${cheaper}
            ${walk('ASC', `OFFSET ${ALTERNATIVES_WALK - 1} LIMIT 1`)})`
      : '';
  const where = [
    `p.host_id <> (SELECT id FROM hosts WHERE slug = ${conditions.param(plan.host.slug)})`,
    `h.status = 'active'`,
  ];
  if (!options.freshness.includeStale) where.push(confirmedWithin(options.freshness, conditions));
  for (const key of AT_LEAST) {
    const amount = plan.comparable_specs[key];
    if (amount !== undefined) where.push(`${specExpression(key)} >= ${conditions.param(String(amount))}::numeric`);
  }
  // Walked up, the walk's order is the answer's, and PostgreSQL stops reading at the limit-th match; walked down, its
  // matches are sorted.
  const { rows } = await db.query(
    `WITH page AS (
       SELECT p.host_id, p.id, p.base_monthly_price FROM (
         SELECT p.host_id, p.id, p.base_monthly_price, p.spec_values FROM products p WHERE ${cheaper}${pastWalkUp}
         ${walk(way === 'up' ? 'ASC' : 'DESC', `LIMIT ${ALTERNATIVES_WALK}`)}) AS p
       JOIN hosts h ON h.id = p.host_id WHERE ${where.join(' AND ')}
       ORDER BY p.base_monthly_price, p.id LIMIT ${limit})
     SELECT ${productColumns(conditions.param(options.dropsSince) + '::text')}
     FROM page JOIN products p ON p.host_id = page.host_id AND p.id = page.id JOIN hosts h ON h.id = p.host_id
     ORDER BY p.base_monthly_price, p.id`,
    conditions.params,
    // One statement for every plan (the specs it states make a few variants): kept prepared, planned once per
    // connection rather than at every product page (about 1 ms; it runs in 0.2).
    { prepared: true },
  );
  return rows.map((row) => toListedProduct(row, options.freshness));
}
