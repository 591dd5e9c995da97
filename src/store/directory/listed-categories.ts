// The categories of the public directory: the registry as the pages show it, and each category's products counted.
import { listCategories, type Category } from '../categories.js';
import type { Queryable } from '../db.js';
import { LISTING_FIGURES_TTL_MS, keptFigure } from './kept-figures.js';

export interface ListedCategory {
  slug: string;
  label: string;
  /** listed products, counted up to CATEGORY_COUNT_CAP */
  product_count: number;
}

/** Counting every product of a large category on each home page view would cost more than the number is worth. */
export const CATEGORY_COUNT_CAP = 1000;
/**
 * The category registry as the pages show it (kept LISTING_FIGURES_TTL_MS): categories are only ever added, so a
 * slug missing from it is looked up afresh (`category`) before a page says there is no such category.
 */
export function keptCategoryRegistry(db: Queryable): Promise<Category[]> {
  return keptFigure(db, 'category-registry', LISTING_FIGURES_TTL_MS, () => listCategories(db));
}

/** A category of the registry with every category, or null for a slug that is none (read afresh to be sure). */
export async function findCategory(
  db: Queryable,
  slug: string,
): Promise<{ category: Category; all: Category[] } | null> {
  const inRegistry = (all: Category[]) => {
    const category = all.find((candidate) => candidate.slug === slug);
    return category ? { category, all } : null;
  };
  // The registry is read afresh only for a slug the kept one does not hold (a category added since).
  return inRegistry(await keptCategoryRegistry(db)) ?? inRegistry(await listCategories(db));
}

/** Every category with its listed products counted up to CATEGORY_COUNT_CAP (kept LISTING_FIGURES_TTL_MS). */
export function keptListedCategories(db: Queryable): Promise<ListedCategory[]> {
  return keptFigure(db, 'categories', LISTING_FIGURES_TTL_MS, () => countListedCategories(db));
}

async function countListedCategories(db: Queryable): Promise<ListedCategory[]> {
  const { rows: categories } = await db.query<{ slug: string; label: string }>(
    'SELECT slug, label FROM categories ORDER BY label',
  );
  if (categories.length === 0) return [];
  // One subquery per category with its slug written in (slugs are checked by the table: [a-z0-9_-]): planned for a
  // parameter, PostgreSQL expects an average category and read the directory through for each small one.
  const { rows } = await db.query<{ k: number; n: number }>(
    categories
      .map(
        (category, k) => `SELECT ${k} AS k, count(*)::int AS n FROM (
           SELECT 1 FROM products p JOIN hosts h ON h.id = p.host_id
           WHERE p.category = '${category.slug.replaceAll("'", "''")}' AND p.status = 'active' AND h.status = 'active'
           LIMIT ${CATEGORY_COUNT_CAP}) AS listed`,
      )
      .join('\nUNION ALL\n'),
  );
  const counts = new Map(rows.map((row) => [Number(row.k), Number(row.n)]));
  return categories.map((category, k) => ({
    slug: category.slug,
    label: category.label,
    product_count: counts.get(k) ?? 0,
  }));
}
