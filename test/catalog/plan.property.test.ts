import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planSync } from '../../src/catalog/plan.js';
import type { ExistingProduct, NormalizedProduct, ProductStatus, SyncPlan } from '../../src/catalog/types.js';

/** What the directory holds for one product, as far as the planner's contract goes. */
interface Row {
  id: string;
  status: ProductStatus;
  /** stands for the stored content: equal fingerprints, equal content */
  fingerprint: string;
}

function product(external_id: string, fingerprint: string): NormalizedProduct {
  return {
    external_id,
    name: `Product ${external_id}`,
    category: 'vps_cloud',
    price: 1,
    currency: 'USD',
    description: null,
    specs: null,
    pricing_tiers: null,
    setup_fee: null,
    contract_duration: null,
    features: null,
    datacenter_locations: null,
    stock: null,
    fingerprint,
  };
}

function existingMap(rows: ReadonlyMap<string, Row>): Map<string, ExistingProduct> {
  const map = new Map<string, ExistingProduct>();
  for (const [external_id, row] of rows) {
    map.set(external_id, { external_id, id: row.id, status: row.status, fingerprint: row.fingerprint });
  }
  return map;
}

/** What a store would do with the plan, kept to the contract's table. */
function apply(rows: ReadonlyMap<string, Row>, plan: SyncPlan): Map<string, Row> {
  const next = new Map(rows);
  for (const p of plan.products) {
    if (p.action === 'unchanged') continue;
    next.set(p.external_id, { id: p.id, status: 'active', fingerprint: p.product.fingerprint });
  }
  for (const d of plan.deactivated) {
    const row = next.get(d.external_id)!;
    next.set(d.external_id, { ...row, status: 'inactive' });
  }
  return next;
}

function counter(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${n++}`;
}

// Small pools so that payloads and catalogues overlap often and fingerprints collide often.
const externalId = fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `p${i}`), 'a/b', '__proto__', 'é');
const fingerprint = fc.constantFrom('f0', 'f1', 'f2');
const existingRows = fc
  .uniqueArray(fc.record({ externalId, status: fc.constantFrom<ProductStatus>('active', 'inactive'), fingerprint }), {
    selector: (r) => r.externalId,
    maxLength: 15,
  })
  .map((list) => {
    const rows = new Map<string, Row>();
    list.forEach((r, k) => rows.set(r.externalId, { id: `old${k}`, status: r.status, fingerprint: r.fingerprint }));
    return rows;
  });
const payload = fc
  .uniqueArray(fc.record({ externalId, fingerprint }), { selector: (r) => r.externalId, maxLength: 15 })
  .map((list) => list.map((r) => product(r.externalId, r.fingerprint)));

const RUNS = { seed: 20_261_121, numRuns: 500 };

describe('planSync properties', () => {
  it('leaves every payload product active with its content, and every other active product inactive', () => {
    fc.assert(
      fc.property(existingRows, payload, (rows, products) => {
        const after = apply(rows, planSync(existingMap(rows), products, counter('new')));
        const named = new Set(products.map((p) => p.external_id));
        for (const p of products) {
          const row = after.get(p.external_id)!;
          expect(row.status).toBe('active');
          expect(row.fingerprint).toBe(p.fingerprint);
        }
        for (const [external_id, before] of rows) {
          if (!named.has(external_id)) expect(after.get(external_id)!.status).toBe('inactive');
          // Ids survive every transition.
          expect(after.get(external_id)!.id).toBe(before.id);
        }
        expect(after.size).toBe(new Set([...rows.keys(), ...named]).size);
      }),
      RUNS,
    );
  });

  it('reports one action per payload product in payload order, with counts that add up', () => {
    fc.assert(
      fc.property(existingRows, payload, (rows, products) => {
        const plan = planSync(existingMap(rows), products, counter('new'));
        const s = plan.summary;
        expect(plan.products.map((p) => p.external_id)).toEqual(products.map((p) => p.external_id));
        expect(s.received).toBe(products.length);
        expect(s.created + s.updated + s.unchanged + s.reactivated).toBe(s.received);
        for (const action of ['created', 'updated', 'unchanged', 'reactivated'] as const) {
          expect(plan.products.filter((p) => p.action === action).length).toBe(s[action]);
        }
        const named = new Set(products.map((p) => p.external_id));
        const activeLeftOut = [...rows].filter(([id, r]) => r.status === 'active' && !named.has(id)).map(([id]) => id);
        expect(s.deactivated).toBe(activeLeftOut.length);
        expect(plan.deactivated.map((d) => d.external_id)).toEqual([...activeLeftOut].sort());
        expect(s.created).toBe(products.filter((p) => !rows.has(p.external_id)).length);
      }),
      RUNS,
    );
  });

  it('gives new products fresh ids and keeps the ids of known ones', () => {
    fc.assert(
      fc.property(existingRows, payload, (rows, products) => {
        const plan = planSync(existingMap(rows), products, counter('new'));
        for (const p of plan.products) {
          const before = rows.get(p.external_id);
          if (before === undefined) expect(p.id).toMatch(/^new\d+$/);
          else expect(p.id).toBe(before.id);
        }
        expect(new Set(plan.products.map((p) => p.id)).size).toBe(plan.products.length);
      }),
      RUNS,
    );
  });

  it('finds nothing to do when the same payload comes again', () => {
    fc.assert(
      fc.property(existingRows, payload, (rows, products) => {
        const once = apply(rows, planSync(existingMap(rows), products, counter('new')));
        const again = planSync(existingMap(once), products, counter('newer'));
        expect(again.products.every((p) => p.action === 'unchanged')).toBe(true);
        expect(again.deactivated).toEqual([]);
        expect(again.summary).toEqual({
          received: products.length,
          created: 0,
          updated: 0,
          unchanged: products.length,
          reactivated: 0,
          deactivated: 0,
        });
      }),
      RUNS,
    );
  });

  it('does not modify its inputs', () => {
    fc.assert(
      fc.property(existingRows, payload, (rows, products) => {
        const existing = existingMap(rows);
        const existingCopy = structuredClone([...existing]);
        const payloadCopy = structuredClone(products);
        planSync(existing, products, counter('new'));
        expect([...existing]).toEqual(existingCopy);
        expect(products).toEqual(payloadCopy);
      }),
      { ...RUNS, numRuns: 100 },
    );
  });
});

describe('planSync, each row of the transition table', () => {
  const existing = new Map<string, ExistingProduct>([
    ['active-same', { external_id: 'active-same', id: 'prd_1', status: 'active', fingerprint: 'same' }],
    ['active-changed', { external_id: 'active-changed', id: 'prd_2', status: 'active', fingerprint: 'old' }],
    ['inactive-same', { external_id: 'inactive-same', id: 'prd_3', status: 'inactive', fingerprint: 'same' }],
    ['inactive-changed', { external_id: 'inactive-changed', id: 'prd_4', status: 'inactive', fingerprint: 'old' }],
    ['z-active-gone', { external_id: 'z-active-gone', id: 'prd_5', status: 'active', fingerprint: 'x' }],
    ['a-active-gone', { external_id: 'a-active-gone', id: 'prd_6', status: 'active', fingerprint: 'x' }],
    ['inactive-gone', { external_id: 'inactive-gone', id: 'prd_7', status: 'inactive', fingerprint: 'x' }],
  ]);
  const plan = planSync(
    existing,
    [
      product('brand-new', 'new'),
      product('active-changed', 'new'),
      product('active-same', 'same'),
      product('inactive-same', 'same'),
      product('inactive-changed', 'new'),
    ],
    () => 'prd_new',
  );
  const actionOf = (external_id: string) => plan.products.find((p) => p.external_id === external_id);

  it('absent, in payload → created with a new id', () => {
    expect(actionOf('brand-new')).toMatchObject({ action: 'created', id: 'prd_new' });
  });
  it('active, in payload, content differs → updated, same id', () => {
    expect(actionOf('active-changed')).toMatchObject({ action: 'updated', id: 'prd_2' });
  });
  it('active, in payload, same content → unchanged', () => {
    expect(actionOf('active-same')).toMatchObject({ action: 'unchanged', id: 'prd_1' });
  });
  it('inactive, in payload → reactivated whether or not the content differs, same id', () => {
    expect(actionOf('inactive-same')).toMatchObject({ action: 'reactivated', id: 'prd_3' });
    expect(actionOf('inactive-changed')).toMatchObject({ action: 'reactivated', id: 'prd_4' });
  });
  it('active, not in payload → deactivated, listed by external_id', () => {
    expect(plan.deactivated).toEqual([
      { external_id: 'a-active-gone', id: 'prd_6' },
      { external_id: 'z-active-gone', id: 'prd_5' },
    ]);
  });
  it('inactive, not in payload → nothing', () => {
    expect(actionOf('inactive-gone')).toBeUndefined();
    expect(plan.deactivated.some((d) => d.external_id === 'inactive-gone')).toBe(false);
  });
  it('summarises the run', () => {
    expect(plan.summary).toEqual({ received: 5, created: 1, updated: 1, unchanged: 1, reactivated: 2, deactivated: 2 });
    expect(plan.products.map((p) => p.external_id)).toEqual([
      'brand-new',
      'active-changed',
      'active-same',
      'inactive-same',
      'inactive-changed',
    ]);
  });
  it('carries the payload product itself for the store to write', () => {
    expect(actionOf('active-changed')!.product.fingerprint).toBe('new');
  });
});
