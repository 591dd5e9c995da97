// The filters and sorts a listing page takes, and the labels of the values a visitor filters on.

import { placeOf } from '../catalog/gazetteer.js';
import type { Category } from '../store/categories.js';
import type { DirectorySort, SortOrder } from '../store/directory/search.js';
import { placeLabel } from './format.js';
import { specPageSort } from './table.js';

/** The sorts a visitor picks from, as one select: each is a sort and an order of the API. */
export const PAGE_SORTS = {
  price: { label: 'Price: low to high', sort: 'price', order: 'asc' },
  price_desc: { label: 'Price: high to low', sort: 'price', order: 'desc' },
  newest: { label: 'Newest first', sort: 'newest', order: 'desc' },
  name: { label: 'Name: A to Z', sort: 'name', order: 'asc' },
  name_desc: { label: 'Name: Z to A', sort: 'name', order: 'desc' },
  price_per_ram_gb: { label: 'Price per GB RAM: lowest first', sort: 'price_per_ram_gb', order: 'asc' },
  price_per_cpu_core: { label: 'Price per CPU core: lowest first', sort: 'price_per_cpu_core', order: 'asc' },
  price_per_disk_gb: { label: 'Price per GB disk: lowest first', sort: 'price_per_disk_gb', order: 'asc' },
} as const;
export type PageSort = keyof typeof PAGE_SORTS;

/** A page's sort value as the API's sort and order: one of PAGE_SORTS, or a table's `<spec>_asc` / `<spec>_desc`. */
export function pageSort(value: string): { sort: DirectorySort; order: SortOrder } | null {
  if (Object.hasOwn(PAGE_SORTS, value)) return PAGE_SORTS[value as PageSort];
  const spec = specPageSort(value);
  return spec ? { sort: spec.key, order: spec.order } : null;
}

/** What a visitor asked for, as the filter form shows it back (values as sent, so that a wrong one can be fixed). */
export interface PageFilters {
  q?: string;
  category?: string;
  location?: string;
  feature?: string;
  country?: string;
  disk_type?: string;
  max_price?: string;
  currency?: string;
  /** list stale providers' plans too */
  include_stale?: boolean;
  /** only plans that can be bought */
  in_stock?: boolean;
  /** YYYY-MM-DD: only plans whose price dropped since that day */
  price_dropped_since?: string;
  /** min_<spec> and max_<spec> as sent */
  ranges?: Record<string, string>;
  view?: 'table';
  /** the currency prices are converted into */
  display_currency?: string;
  period?: 'year';
  sort: string;
}

export function categoryLabel(categories: Category[], slug: string): string {
  return categories.find((category) => category.slug === slug)?.label ?? slug;
}

/** A location filter as the choices name it: "Frankfurt, Germany" for "Frankfurt". */
export function locationLabel(location: string): string {
  const place = placeOf(location);
  return place === null ? location : placeLabel({ location, city: place.city, country: place.country });
}
