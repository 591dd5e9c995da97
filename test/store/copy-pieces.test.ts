// The embedded store's COPY input, cut into pieces of whole rows so that PGlite never holds a large catalogue whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COPY_PIECE_BYTES, copyPieces } from '../../src/store/embedded.js';

describe('copyPieces', () => {
  it('gives back every byte, in order, in pieces that end where rows end', () => {
    const row = fc
      .string({ unit: fc.constantFrom('a', 'é', '\t', '\\N', 'x'.repeat(5000)), maxLength: 300 })
      .map((text) => `${text}\n`);
    fc.assert(
      fc.property(fc.array(row, { maxLength: 400 }), fc.integer({ min: 1, max: 50_000 }), (rows, cut) => {
        // Chunks as the store makes them: any length, not aligned with rows.
        const text = rows.join('');
        const chunks: string[] = [];
        for (let start = 0; start < text.length; start += cut) chunks.push(text.slice(start, start + cut));
        const pieces = [...copyPieces(chunks)].map((piece) => piece.join(''));
        expect(pieces.join('')).toBe(text);
        for (const piece of pieces) {
          expect(piece.endsWith('\n')).toBe(true);
          // A piece is about COPY_PIECE_BYTES: past it, it ends at the first row end the next chunk holds.
          const rowsInside = piece.slice(0, -1).split('\n');
          const withoutLastRow = piece.length - rowsInside.at(-1)!.length - 1;
          expect(withoutLastRow).toBeLessThan(COPY_PIECE_BYTES + cut);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps a single long row (the receipts) whole', () => {
    const row = `1\tcontext\t${'d'.repeat(3 * COPY_PIECE_BYTES)}\n`;
    const chunks = row.match(/[\s\S]{1,65536}/g)!;
    const pieces = [...copyPieces(chunks)];
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.join('')).toBe(row);
  });

  it('yields nothing for no input', () => {
    expect([...copyPieces([])]).toEqual([]);
    expect([...copyPieces([''])]).toEqual([]);
  });
});
