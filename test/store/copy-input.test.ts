// The embedded store's COPY: pieces written in turn into one buffer (or, past its size, a Blob of their own) must
// arrive as the very rows sent, whatever their length and characters, piece after piece of other lengths.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPY_INPUT_MAX_BYTES, COPY_PIECE_BYTES, type EmbeddedDatabase } from '../../src/store/embedded.js';
import { openEmbeddedTestDatabase } from '../support/databases.js';

/** A COPY text field: backslash, tab and line breaks escaped as COPY's text format wants them. */
const field = (text: string) =>
  text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

describe('COPY into the embedded store', () => {
  let db: EmbeddedDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openEmbeddedTestDatabase());
    await db.query('CREATE TABLE copied (n int PRIMARY KEY, text text NOT NULL)');
  });

  afterAll(async () => {
    await close?.();
  });

  async function roundTrip(texts: string[]): Promise<string[]> {
    await db.query('TRUNCATE copied');
    await db.transaction((tx) =>
      tx.copyFrom(
        'COPY copied (n, text)',
        texts.map((text, n) => `${n}\t${field(text)}\n`),
      ),
    );
    const { rows } = await db.query<{ text: string }>('SELECT text FROM copied ORDER BY n');
    return rows.map((row) => row.text);
  }

  it('gives back every row of many pieces, the short after the long, in any characters', async () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'é', '€', '😀', '\t', '\\', '\n', 'x'.repeat(3000)),
      maxLength: 200,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 600 }), async (texts) => {
        expect(await roundTrip(texts)).toEqual(texts);
      }),
      { numRuns: 12 },
    );
  });

  it('sends a piece longer than its buffer on its own, and the pieces after it through the buffer again', async () => {
    // UTF-8 of '€' is three bytes: the one long row is past the buffer in bytes though not in characters.
    const long = '€'.repeat(Math.ceil(COPY_INPUT_MAX_BYTES / 3) + 10);
    const short = Array.from({ length: Math.ceil((2 * COPY_PIECE_BYTES) / 1000) }, (_, k) => `${k}`.padEnd(1000, 'é'));
    const texts = [...short, long, ...short];
    const back = await roundTrip(texts);
    expect(back.length).toBe(texts.length);
    expect(back[short.length]).toBe(long);
    expect(back).toEqual(texts);
  });
});
