// The provider's mapping file (`--map categories.json`): which directory category each product group, module or
// single product of its billing system belongs to. Billing systems know groups and modules, not the directory's
// categories, so this is the one thing a provider writes by hand; null for a key leaves those products out.
//
//   {
//     "groups":   {"1": "web_shared", "Game servers": "game_other", "9": null},
//     "modules":  {"pterodactyl": "game_minecraft"},
//     "products": {"42": "game_rust", "77": null}
//   }
//
// A product takes the first of: its own id under "products", each of its groups (by id, then by name) under
// "groups", its module under "modules" (any case).

export interface CategoryMap {
  readonly groups: ReadonlyMap<string, string | null>;
  /** keys lower case */
  readonly modules: ReadonlyMap<string, string | null>;
  readonly products: ReadonlyMap<string, string | null>;
}

export const EMPTY_CATEGORY_MAP: CategoryMap = { groups: new Map(), modules: new Map(), products: new Map() };

const SECTIONS = ['groups', 'modules', 'products'] as const;
type Section = (typeof SECTIONS)[number];

/** Longest category slug accepted in the file; the directory decides which slugs exist. */
const MAX_CATEGORY_LENGTH = 100;

export class CategoryMapError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file} is not a usable category map:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Reads a mapping file's text; every problem is listed at once. */
export function parseCategoryMap(text: string, file: string): CategoryMap {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CategoryMapError(file, [`not JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  if (!isPlainObject(parsed)) {
    throw new CategoryMapError(file, ['must be an object such as {"groups": {"1": "web_shared"}}']);
  }
  const problems: string[] = [];
  const sections: Record<Section, Map<string, string | null>> = {
    groups: new Map(),
    modules: new Map(),
    products: new Map(),
  };
  for (const [key, value] of Object.entries(parsed)) {
    if (key === '$comment') continue;
    if (!(SECTIONS as readonly string[]).includes(key)) {
      problems.push(`unknown key "${key}" (known: ${SECTIONS.join(', ')}, $comment)`);
      continue;
    }
    const section = key as Section;
    if (!isPlainObject(value)) {
      problems.push(`"${section}" must be an object mapping ids or names to a category (or null to leave them out)`);
      continue;
    }
    for (const [name, category] of Object.entries(value)) {
      const problem = categoryProblem(category);
      if (problem !== null) {
        problems.push(`"${section}" → "${name}": ${problem}`);
        continue;
      }
      sections[section].set(
        section === 'modules' ? name.toLowerCase() : name,
        category === null ? null : (category as string).trim(),
      );
    }
  }
  if (problems.length > 0) throw new CategoryMapError(file, problems);
  return sections;
}

function categoryProblem(category: unknown): string | null {
  if (category === null) return null;
  if (typeof category !== 'string') return 'must be a category slug such as "vps_cloud", or null to leave them out';
  const trimmed = category.trim();
  if (trimmed === '') return 'is empty; write a category slug such as "vps_cloud", or null to leave them out';
  if ([...trimmed].length > MAX_CATEGORY_LENGTH) return `is longer than ${MAX_CATEGORY_LENGTH} characters`;
  return null;
}

/** What the map says about one product. */
export type CategoryChoice =
  { kind: 'category'; category: string } | { kind: 'left_out'; by: string } | { kind: 'unmapped' };

export interface MappedThing {
  id: string;
  groups: readonly { id: string; name: string | null }[];
  module: string | null;
}

export function chooseCategory(map: CategoryMap, product: MappedThing): CategoryChoice {
  const found = (value: string | null, by: string): CategoryChoice =>
    value === null ? { kind: 'left_out', by } : { kind: 'category', category: value };
  if (map.products.has(product.id)) return found(map.products.get(product.id)!, `"products" → "${product.id}"`);
  for (const group of product.groups) {
    if (map.groups.has(group.id)) return found(map.groups.get(group.id)!, `"groups" → "${group.id}"`);
    if (group.name !== null && map.groups.has(group.name)) {
      return found(map.groups.get(group.name)!, `"groups" → "${group.name}"`);
    }
  }
  if (product.module !== null) {
    const key = product.module.toLowerCase();
    if (map.modules.has(key)) return found(map.modules.get(key)!, `"modules" → "${product.module}"`);
  }
  return { kind: 'unmapped' };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
