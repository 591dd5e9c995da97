// Migration 053 moves each host's receipts, kept as one text, into pieces (a row each), and the sync reads them back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/catalog/api-keys.js';
import { issueApiKey } from '../../src/store/api-keys.js';
import { insertHost } from '../../src/store/hosts.js';
import { migrate } from '../../src/store/migrate.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { findSyncCaller } from '../../src/store/sync-caller.js';
import { createTestDatabase } from '../support/server.js';

describe('receipts kept before migration 053 (postgres store)', () => {
  let db: PostgresDatabase;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    db = new PostgresDatabase({ url: database.url, poolSize: 2, statementTimeoutMs: 30_000 });
  });

  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('become their host’s first piece, which the sync reads as its receipts', async () => {
    await migrate(db, '052');
    const kept = await insertHost(db, { slug: 'kept-receipts', name: 'Kept', default_currency: 'USD' });
    const none = await insertHost(db, { slug: 'empty-receipts', name: 'Empty', default_currency: 'USD' });
    const text = 'digest-a\tfp-a\tprd_a\text-a\ndigest-b\tfp-b\tprd_b\text "b" \\ ü\n';
    await db.query(
      `INSERT INTO sync_receipts (host_id, context, receipts, written_by, current) VALUES ($1, 'ctx', $2, 'syn_kept', true), ($3, 'ctx', '', 'syn_none', false)`,
      [kept.id, text, none.id],
    );

    await migrate(db);
    const pieces = await db.query('SELECT host_id::int, piece, text FROM sync_receipt_pieces ORDER BY host_id');
    expect(pieces.rows).toEqual([{ host_id: kept.id, piece: 0, text }]);
    const heads = await db.query(
      'SELECT host_id::int, context, receipts, written_by, current FROM sync_receipts ORDER BY host_id',
    );
    expect(heads.rows).toEqual([
      { host_id: kept.id, context: 'ctx', receipts: null, written_by: 'syn_kept', current: true },
      { host_id: none.id, context: 'ctx', receipts: null, written_by: 'syn_none', current: false },
    ]);

    const key = (await issueApiKey(db, kept.id)).key;
    const window = { dryRun: false, seconds: 300, max: 1 };
    const caller = await findSyncCaller(db, hashApiKey(key), window, { receipts: true, refusalBudget: 10 });
    expect(caller?.receipts).toEqual({ context: 'ctx', pieces: [text], writtenBy: 'syn_kept' });
    // A host whose receipts were empty has none.
    const other = (await issueApiKey(db, none.id)).key;
    expect(
      (await findSyncCaller(db, hashApiKey(other), window, { receipts: true, refusalBudget: 10 }))?.receipts,
    ).toBeNull();
  });
});
