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
 * Rows walked each way in the category's price index (migration 041): the cheapest plans of the category, and those
 * just below the plan's price, where plans with at least its specs are most likely to be. A category with at most
 * twice this many cheaper plans is searched whole; beyond, the alternatives are found among these, in a time bounded
 * however large the directory is.
 */
export const ALTERNATIVES_WALK = 1000;

/**
 * Up to `limit` cheaper alternatives to `plan`, cheapest first (by the EUR price, then id), from active providers
 * whose listing is not stale. None for a plan without a EUR price.
 */
export async function cheaperAlternatives(
  db: Queryable,
  plan: ListedProduct,
  options: { freshness: Freshness; dropsSince: string; limit: number },
): Promise<ListedProduct[]> {
  if (plan.base_monthly_price === null) return [];
  const conditions = new Conditions();
  const category = conditions.param(plan.category);
  const price = conditions.param(String(plan.base_monthly_price));
  const walk = (direction: 'ASC' | 'DESC') =>
    `(SELECT p.host_id, p.id, p.base_monthly_price, p.spec_values FROM products p
      WHERE p.status = 'active' AND p.category = ${category} AND p.base_monthly_price < ${price}::numeric
      ORDER BY p.base_monthly_price ${direction}, p.id ${direction} LIMIT ${ALTERNATIVES_WALK})`;
  const where = [
    `p.host_id <> (SELECT id FROM hosts WHERE slug = ${conditions.param(plan.host.slug)})`,
    `h.status = 'active'`,
  ];
  if (!options.freshness.includeStale) where.push(confirmedWithin(options.freshness, conditions));
  for (const key of AT_LEAST) {
    const amount = plan.comparable_specs[key];
    if (amount !== undefined) where.push(`${specExpression(key)} >= ${conditions.param(String(amount))}::numeric`);
  }
  const { rows } = await db.query(
    `WITH walked AS (${walk('ASC')} UNION ${walk('DESC')}),
       page AS (SELECT p.host_id, p.id FROM walked p JOIN hosts h ON h.id = p.host_id WHERE ${where.join(' AND ')}
                ORDER BY p.base_monthly_price, p.id LIMIT ${Math.trunc(options.limit)})
     SELECT ${productColumns(conditions.param(options.dropsSince) + '::text')}
     FROM page JOIN products p ON p.host_id = page.host_id AND p.id = page.id JOIN hosts h ON h.id = p.host_id
     ORDER BY p.base_monthly_price, p.id`,
    conditions.params,
  );
  return rows.map((row) => toListedProduct(row, options.freshness));
}
