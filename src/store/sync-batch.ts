// How a sync's transaction sends its statements: several in one round trip, and many rows by COPY or as one JSON.

import type { ProductWrites } from '../catalog/plan.js';
import type { RateTable } from '../catalog/rates.js';
import type { BatchOptions, QueryResult, Row, Statement, Transaction } from './db.js';
import { contentRecord, copyText } from './product-columns.js';
import { derivedPrices } from './rates.js';

type Results<S> = { [K in keyof S]: S[K] extends Statement ? QueryResult<Row> : QueryResult<Row> | undefined };

/** Statements sent in one round trip, in the order given (those left undefined are not sent); results by name. */
export async function batch<S extends Record<string, Statement | undefined>>(
  tx: Transaction,
  statements: S,
  options?: BatchOptions,
): Promise<Results<S>> {
  const names = Object.keys(statements).filter((name) => statements[name] !== undefined);
  const results = await tx.queries(
    names.map((name) => statements[name]!),
    options,
  );
  return Object.fromEntries(names.map((name, k) => [name, results[k]])) as Results<S>;
}

/**
 * Up to this many new (or changed) products are written by one statement in the sync's last round trip, from
 * their JSON; more go by COPY, which streams and is faster per row but costs round trips of its own.
 */
export const WRITE_BY_STATEMENT_MAX = 256;
/** rows per chunk handed to COPY: large enough to amortize the stream, small enough to never hold a catalogue */
const ROWS_PER_CHUNK = 512;

export function* copyChunks<T>(items: readonly T[], row: (item: T) => string): Generator<string> {
  for (let start = 0; start < items.length; start += ROWS_PER_CHUNK) {
    let chunk = '';
    const end = Math.min(start + ROWS_PER_CHUNK, items.length);
    for (let k = start; k < end; k++) chunk += row(items[k]!) + '\n';
    yield chunk;
  }
}

/** COPY rows `<key>\t<piece's number>\t<piece>` of pieces in order (of receipts, of a run's actions). */
export function* inPieces(key: string, pieces: Iterable<string>): Generator<string> {
  let k = 0;
  for (const piece of pieces) yield `${key}\t${k++}\t${copyText(piece)}\n`;
}

/**
 * Products as the JSON array json_to_recordset reads: external_id, id, fingerprint, the content of each and what
 * derives from it, with the prices derived from it (the EUR one by the rates the transaction read under its lock).
 */
export function recordsJson(products: ProductWrites['created'], rates: RateTable): string {
  return JSON.stringify(
    products.map((p) => ({ ...contentRecord(p.content), id: p.id, ...derivedPrices(p.content, rates) })),
  );
}
