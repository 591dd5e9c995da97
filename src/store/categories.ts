// The category registry: the slugs a product's category must be one of.
import type { Queryable } from './db.js';

export interface Category {
  slug: string;
  label: string;
}

export class CategoryExistsError extends Error {
  constructor(readonly slug: string) {
    super(`category "${slug}" already exists`);
  }
}

export async function listCategories(db: Queryable): Promise<Category[]> {
  const { rows } = await db.query<Category>('SELECT slug, label FROM categories ORDER BY slug');
  return rows;
}

export async function addCategory(db: Queryable, category: Category): Promise<Category> {
  const { rows } = await db.query<Category>(
    'INSERT INTO categories (slug, label) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING RETURNING slug, label',
    [category.slug, category.label],
  );
  if (rows.length === 0) throw new CategoryExistsError(category.slug);
  return rows[0]!;
}
