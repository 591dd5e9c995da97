// The provider's category map: what it accepts, every mistake named at once, and the order a product is looked up in.
import { describe, expect, it } from 'vitest';
import { CategoryMapError, chooseCategory, parseCategoryMap } from '../../src/connectors/category-map.js';

function problems(text: string): readonly string[] {
  try {
    parseCategoryMap(text, 'categories.json');
  } catch (error) {
    if (error instanceof CategoryMapError) return error.problems;
    throw error;
  }
  throw new Error('accepted');
}

describe('the category map', () => {
  it('accepts groups, modules and products, a $comment, and null to leave things out', () => {
    const map = parseCategoryMap(
      JSON.stringify({
        $comment: 'WHMCS groups',
        groups: { '1': ' web_shared ', '9': null },
        modules: { cPanel: 'web_shared' },
        products: { '7': 'dedicated' },
      }),
      'categories.json',
    );
    expect([...map.groups]).toEqual([
      ['1', 'web_shared'],
      ['9', null],
    ]);
    expect([...map.modules]).toEqual([['cpanel', 'web_shared']]);
    expect([...map.products]).toEqual([['7', 'dedicated']]);
  });

  it('names every mistake at once', () => {
    expect(problems('{"group": {}, "groups": {"1": 5, "2": "", "__proto__": "x"}, "modules": []}')).toEqual([
      'unknown key "group" (known: groups, modules, products, $comment)',
      '"groups" → "1": must be a category slug such as "vps_cloud", or null to leave them out',
      '"groups" → "2": is empty; write a category slug such as "vps_cloud", or null to leave them out',
      '"modules" must be an object mapping ids or names to a category (or null to leave them out)',
    ]);
    expect(problems('[1]')).toEqual(['must be an object such as {"groups": {"1": "web_shared"}}']);
    expect(problems('{"groups": {')[0]).toMatch(/^not JSON: /);
    expect(() => parseCategoryMap('{"groups": 1}', 'map.json')).toThrow(
      'map.json is not a usable category map:\n  "groups" must be an object mapping ids or names to a category (or null to leave them out)',
    );
  });

  it('keeps "__proto__" and "constructor" as plain keys', () => {
    const map = parseCategoryMap(
      '{"groups": {"__proto__": "vps_cloud", "constructor": "web_shared"}}',
      'categories.json',
    );
    expect(chooseCategory(map, { id: '1', groups: [{ id: '__proto__', name: null }], module: null })).toEqual({
      kind: 'category',
      category: 'vps_cloud',
    });
    expect(chooseCategory(map, { id: '1', groups: [{ id: 'toString', name: null }], module: null })).toEqual({
      kind: 'unmapped',
    });
  });

  it('looks up the product, then each group by id and by name, then the module in any case', () => {
    const map = parseCategoryMap(
      JSON.stringify({
        products: { '7': 'dedicated' },
        groups: { '2': 'vps_cloud', Games: 'game_other' },
        modules: { Pterodactyl: 'game_minecraft' },
      }),
      'categories.json',
    );
    const choose = (id: string, groups: { id: string; name: string | null }[], module: string | null) =>
      chooseCategory(map, { id, groups, module });
    expect(choose('7', [{ id: '2', name: null }], 'pterodactyl')).toEqual({ kind: 'category', category: 'dedicated' });
    expect(
      choose(
        '8',
        [
          { id: '5', name: null },
          { id: '2', name: null },
        ],
        'pterodactyl',
      ),
    ).toEqual({ kind: 'category', category: 'vps_cloud' });
    expect(choose('8', [{ id: '5', name: 'Games' }], null)).toEqual({ kind: 'category', category: 'game_other' });
    expect(choose('8', [{ id: '5', name: 'Other' }], 'PTERODACTYL')).toEqual({
      kind: 'category',
      category: 'game_minecraft',
    });
    expect(choose('8', [{ id: '5', name: 'Other' }], 'cpanel')).toEqual({ kind: 'unmapped' });
  });
});
