// The compact text a run's per-product actions are kept in reads back exactly as written.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRunActions, encodeRunActions } from '../../src/store/sync-runs.js';

// What validation lets through as an external_id: 1–255 characters, no control characters.
const externalId = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s));
const productId = fc.stringMatching(/^prd_[0-9A-HJKMNP-TV-Z]{26}$/);
const action = fc.constantFrom('created' as const, 'updated' as const, 'unchanged' as const, 'reactivated' as const);

describe('run actions text', () => {
  it('round-trips any plan', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ external_id: externalId, id: productId, action }), { maxLength: 30 }),
        fc.array(fc.record({ external_id: externalId, id: productId }), { maxLength: 30 }),
        (products, deactivated) => {
          expect(decodeRunActions(encodeRunActions({ products, deactivated } as never))).toEqual({ products, deactivated });
        },
      ),
    );
  });

  it('reads a run recorded before actions were kept as having none', () => {
    expect(decodeRunActions(null)).toEqual({ products: [], deactivated: [] });
  });
});
