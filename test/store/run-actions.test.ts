// The compact text a run's per-product actions are kept in, in pieces, reads back exactly as written.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  actionsFitTheRun,
  decodeRunActions,
  RUN_ACTIONS_PER_PIECE,
  runActionPieces,
} from '../../src/store/sync-runs.js';

// What validation lets through as an external_id: 1–255 characters, no control characters.
const externalId = fc
  .string({ minLength: 1, maxLength: 40, unit: 'grapheme' })
  .filter((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s));
const productId = fc.stringMatching(/^prd_[0-9A-HJKMNP-TV-Z]{26}$/);
const action = fc.constantFrom('created' as const, 'updated' as const, 'unchanged' as const, 'reactivated' as const);

describe('run actions text', () => {
  it('round-trips any plan, whatever the size of its pieces', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ external_id: externalId, id: productId, action }), { maxLength: 30 }),
        fc.array(fc.record({ external_id: externalId, id: productId }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 70 }),
        (products, deactivated, perPiece) => {
          const pieces = [...runActionPieces({ products, deactivated } as never, perPiece)];
          expect(pieces).toHaveLength(Math.ceil((products.length + deactivated.length) / perPiece));
          for (const piece of pieces) expect(piece.split('\n').length).toBeLessThanOrEqual(perPiece);
          expect(decodeRunActions(pieces)).toEqual({ products, deactivated });
        },
      ),
    );
  });

  it('keeps up to one piece in the run’s row', () => {
    const plan = (n: number) => ({
      products: Array.from({ length: n }, (_, k) => ({
        external_id: `e${k}`,
        id: `prd_${k}`,
        action: 'created' as const,
      })),
      deactivated: [{ external_id: 'gone', id: 'prd_gone' }],
    });
    expect(actionsFitTheRun(plan(RUN_ACTIONS_PER_PIECE - 1) as never)).toBe(true);
    expect([...runActionPieces(plan(RUN_ACTIONS_PER_PIECE - 1) as never)]).toHaveLength(1);
    expect(actionsFitTheRun(plan(RUN_ACTIONS_PER_PIECE) as never)).toBe(false);
    expect([...runActionPieces(plan(RUN_ACTIONS_PER_PIECE) as never)]).toHaveLength(2);
  });

  it('reads a run recorded before actions were kept as having none', () => {
    expect(decodeRunActions([null])).toEqual({ products: [], deactivated: [] });
    expect(decodeRunActions([''])).toEqual({ products: [], deactivated: [] });
  });
});
