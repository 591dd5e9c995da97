// The sync service in-process, on both stores: every outcome of a sync request, from its headers to its answer, and
// what the database holds afterwards. The HTTP mapping of these outcomes is tested in test/http/sync-route.test.ts,
// and the whole endpoint end to end in test/e2e.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/catalog/api-keys.js';
import { loadConfig, type Config } from '../../src/config.js';
import { slugFromName } from '../../src/catalog/slugs.js';
import { syncAnswers } from '../../src/http/sync-answers.js';
import { issueApiKey, revokeApiKey } from '../../src/store/api-keys.js';
import type { Database } from '../../src/store/db.js';
import { insertHost } from '../../src/store/hosts.js';
import { touchInstance } from '../../src/store/instances.js';
import { listProducts } from '../../src/store/products.js';
import { SyncService, type Admission, type SyncOutcome } from '../../src/sync/service.js';
import { SyncSlots } from '../../src/sync/slots.js';
import { checkedOnThreads, closeValidationPool, VALIDATION_THREAD_MIN_BYTES } from '../../src/sync/validation-pool.js';
import { catalogue } from '../../bench/products.mjs';
import { openTestDatabase } from '../support/databases.js';
import { STORES } from '../support/server.js';

interface Sent {
  dryRun?: boolean;
  idempotencyKey?: string;
}

function bodyOf(json: unknown) {
  const bytes = Buffer.from(typeof json === 'string' ? json : JSON.stringify(json));
  return { digest: createHash('sha256').update(bytes).digest('hex'), takeBytes: () => bytes };
}

describe.each(STORES)('the sync service (%s store)', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  const instanceId = `ins_service_test_${store}`;
  const logs: string[] = [];
  const request = {
    id: 'req_service_test',
    instance: '/api/v1/sync/products',
    log: { warn: (_: object, message: string) => void logs.push(message) },
  };

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    await touchInstance(db, instanceId);
  });

  afterAll(async () => {
    await close?.();
    await closeValidationPool();
  });

  /** `changes`: values the environment does not set (config.ts), such as LOCK_TIMEOUT_MS */
  function serviceWith(env: Record<string, string> = {}, slots = new SyncSlots(4, 100), changes: Partial<Config> = {}) {
    const config = { ...loadConfig({ SYNC_MAX_PER_WINDOW: '1', ...env }), ...changes };
    return new SyncService({ db, config, instanceId, slots, answers: syncAnswers });
  }

  async function onboard(name: string): Promise<{ hostId: number; key: string; keyId: string }> {
    const host = await insertHost(db, { slug: `${slugFromName(name)}-${store}`, name, default_currency: 'USD' });
    const key = await issueApiKey(db, host.id);
    return { hostId: host.id, key: key.key, keyId: key.id };
  }

  /** What the HTTP layer does before the body: find the caller, admit the request. */
  async function admit(service: SyncService, key: string, sent: Sent = {}, receipts = false): Promise<Admission> {
    const caller = await service.findCaller(hashApiKey(key), sent.dryRun ?? false, receipts);
    if (!caller) throw new Error('unknown key');
    const idempotencyKey = sent.idempotencyKey ? createHash('sha256').update(sent.idempotencyKey).digest('hex') : null;
    return service.admit(caller, { dryRun: sent.dryRun ?? false, idempotencyKey, startedAt: new Date() });
  }

  /** A whole request: admitted, run with its body, its key released unless its answer was kept. */
  async function send(
    service: SyncService,
    key: string,
    json: unknown,
    sent: Sent = {},
  ): Promise<SyncOutcome | Admission['verdict']> {
    const admission = await admit(service, key, sent, true);
    try {
      if (admission.verdict !== 'admitted') return admission.verdict;
      return await service.run(admission, bodyOf(json), request);
    } finally {
      await service.release(admission);
    }
  }

  function answerOf(outcome: SyncOutcome | string): { status: number; body: any } {
    if (typeof outcome === 'string' || !('answer' in outcome)) throw new Error(`no answer: ${JSON.stringify(outcome)}`);
    return { status: outcome.answer.status, body: JSON.parse(outcome.answer.body) };
  }

  async function listing(hostId: number) {
    return (await listProducts(db, hostId, { status: 'all', limit: 1000, afterId: null })).products;
  }

  it('applies a catalogue: created, then unchanged, updated, deactivated and reactivated', async () => {
    const host = await onboard('Applied');
    const service = serviceWith({ SYNC_MAX_PER_WINDOW: '10' });
    const products = catalogue(3);
    const first = await send(service, host.key, { products });
    expect(first).toMatchObject({
      kind: 'applied',
      dryRun: false,
      summary: { received: 3, created: 3 },
      usage: { used: 1 },
    });
    const { status, body } = answerOf(first);
    expect(status).toBe(200);
    expect(body).toMatchObject({ dry_run: false, host: `applied-${store}`, deactivated: [] });
    expect(body.products.map((p: any) => p.action)).toEqual(['created', 'created', 'created']);
    expect((await listing(host.hostId)).map((p) => p.external_id)).toEqual(products.map((p) => p.external_id));

    const again = await send(service, host.key, { products: [{ ...products[0], name: 'Renamed' }, products[1]] });
    expect(answerOf(again).body.summary).toEqual({
      received: 2,
      created: 0,
      updated: 1,
      unchanged: 1,
      reactivated: 0,
      deactivated: 1,
    });
    const back = await send(service, host.key, { products });
    expect(answerOf(back).body.summary).toEqual({
      received: 3,
      created: 0,
      updated: 1,
      unchanged: 1,
      reactivated: 1,
      deactivated: 0,
    });
    expect((await listing(host.hostId)).every((p) => p.status === 'active')).toBe(true);
  });

  it('plans a dry run against what is held, and changes nothing but its run', async () => {
    const host = await onboard('Dry');
    const service = serviceWith();
    const dry = await send(service, host.key, { products: catalogue(2) }, { dryRun: true });
    expect(dry).toMatchObject({ kind: 'applied', dryRun: true, window: { name: 'dry-run' } });
    expect(answerOf(dry).body).toMatchObject({ dry_run: true, summary: { created: 2 } });
    expect(await listing(host.hostId)).toEqual([]);
    // Dry runs have a window of their own: the sync slot is still free.
    expect(await send(service, host.key, { products: catalogue(2) })).toMatchObject({ kind: 'applied', dryRun: false });
  });

  it('replays a finished request under its Idempotency-Key, and refuses the key for another body', async () => {
    const host = await onboard('Replayed');
    const service = serviceWith();
    const body = { products: catalogue(2) };
    const first = await send(service, host.key, body, { idempotencyKey: 'k-1' });
    expect(first).toMatchObject({ kind: 'applied' });
    // The window is full, yet the retry is answered: it applies nothing.
    const retry = await send(service, host.key, body, { idempotencyKey: 'k-1' });
    expect(retry).toEqual({ kind: 'replayed', answer: (first as { answer: unknown }).answer });
    expect(await send(service, host.key, { products: catalogue(3) }, { idempotencyKey: 'k-1' })).toEqual({
      kind: 'key_reused',
    });
    expect(await send(service, host.key, body, { idempotencyKey: 'k-1', dryRun: true })).toEqual({
      kind: 'key_reused',
    });
  });

  it('refuses a catalogue that breaks the rules, changes nothing, and keeps the refusal for its key', async () => {
    const host = await onboard('Refused');
    const service = serviceWith();
    const bad = { products: [{ external_id: 'x', name: 'X', category: 'nope', price: -1 }] };
    const refused = await send(service, host.key, bad, { idempotencyKey: 'bad-1' });
    expect(refused).toMatchObject({ kind: 'refused' });
    const { status, body } = answerOf(refused);
    expect(status).toBe(422);
    expect(body).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: '2 problem(s) in the payload; nothing was changed',
      instance: '/api/v1/sync/products',
      request_id: 'req_service_test',
      errors: [
        { pointer: '/products/0/category', code: 'enum' },
        { pointer: '/products/0/price', code: 'minimum', detail: 'must be >= 0' },
      ],
    });
    expect(await send(service, host.key, bad, { idempotencyKey: 'bad-1' })).toEqual({
      kind: 'replayed',
      answer: (refused as { answer: unknown }).answer,
    });
    expect(answerOf(await send(service, host.key, '{"products": [')).body).toMatchObject({
      detail: 'the body is not valid JSON',
      errors: [{ pointer: '', code: 'invalid_json' }],
    });
    expect(await listing(host.hostId)).toEqual([]);
    // A refusal uses no sync: the window is still free.
    expect(await send(service, host.key, { products: catalogue(1) })).toMatchObject({ kind: 'applied' });
  });

  it('turns a request away while another with its key runs, and lets it through once that one released it', async () => {
    const host = await onboard('In Use');
    const service = serviceWith();
    // The claim names this process, alive: a claim of a process without a fresh heartbeat could be taken over.
    await touchInstance(db, instanceId);
    const running = await admit(service, host.key, { idempotencyKey: 'busy-key' });
    expect(running.verdict).toBe('admitted');
    expect((await admit(service, host.key, { idempotencyKey: 'busy-key' })).verdict).toBe('key_in_use');
    // Its client went away before the body arrived: the key is free again.
    await service.release(running);
    expect(await send(service, host.key, { products: catalogue(1) }, { idempotencyKey: 'busy-key' })).toMatchObject({
      kind: 'applied',
    });
  });

  it('rate limits a host whose window is full, before the body and again under the host lock', async () => {
    const host = await onboard('Limited');
    const service = serviceWith();
    // Both admitted while the window is empty; the second finds it full once it holds the host.
    const first = await admit(service, host.key);
    const second = await admit(service, host.key);
    expect(await service.run(first, bodyOf({ products: catalogue(1) }), request)).toMatchObject({ kind: 'applied' });
    const late = await service.run(second, bodyOf({ products: catalogue(2) }), request);
    expect(late).toMatchObject({ kind: 'rate_limited', window: { name: 'sync', max: 1 }, usage: { used: 1 } });
    expect((late as { usage: { freesInSeconds: number } }).usage.freesInSeconds).toBeGreaterThan(0);
    expect(await admit(service, host.key)).toMatchObject({ verdict: 'rate_limited', caller: { usage: { used: 1 } } });
    expect(await listing(host.hostId)).toHaveLength(1);
  });

  it('refuses a key revoked while its body was read', async () => {
    const host = await onboard('Revoked');
    const service = serviceWith();
    const admitted = await admit(service, host.key);
    await revokeApiKey(db, host.keyId);
    expect(await service.run(admitted, bodyOf({ products: catalogue(1) }), request)).toEqual({ kind: 'revoked' });
    expect(await listing(host.hostId)).toEqual([]);
  });

  it('answers overloaded when every sync slot is taken and none may wait', async () => {
    const host = await onboard('Overloaded');
    const slots = new SyncSlots(1, 0);
    const service = serviceWith({}, slots);
    let free!: () => void;
    const held = slots.run(() => new Promise<void>((resolve) => (free = resolve)));
    expect(await send(service, host.key, { products: catalogue(1) })).toEqual({ kind: 'overloaded' });
    free();
    await held;
    expect(await send(service, host.key, { products: catalogue(1) })).toMatchObject({ kind: 'applied' });
  });

  it('counts refusals against their budget', async () => {
    const host = await onboard('Refusals');
    const service = serviceWith({}, undefined, { refusedMaxPerWindow: 2 });
    for (let k = 0; k < 2; k++) {
      const caller = (await service.findCaller(hashApiKey(host.key), false, false))!;
      expect(service.refusedTooOften(caller)).toBe(false);
      await service.recordRefusal(host.hostId);
    }
    const caller = (await service.findCaller(hashApiKey(host.key), false, false))!;
    expect(service.refusedTooOften(caller)).toBe(true);
    expect(caller.refusals.freesInSeconds).toBeGreaterThan(0);
  });

  it('answers a large catalogue sent again from its receipts, and heals receipts that no longer hold', async () => {
    const host = await onboard('Receipts');
    const service = serviceWith({ SYNC_MAX_PER_WINDOW: '100' });
    const products = catalogue(200);
    const created = answerOf(await send(service, host.key, { products }));
    const ids = created.body.products.map((p: any) => p.id);
    const again = answerOf(await send(service, host.key, { products }));
    expect(again.body.summary).toMatchObject({ unchanged: 200 });
    expect(again.body.products.map((p: any) => p.id)).toEqual(ids);

    await alterFirstReceipt(host.hostId);
    logs.length = 0;
    const healed = answerOf(await send(service, host.key, { products }));
    expect(healed.body.summary).toMatchObject({ unchanged: 200 });
    expect(logs).toContain('a stored receipt no longer holds; the catalogue is validated in full');
    expect(await receiptsOf(host.hostId)).toMatchObject({
      current: true,
      receipts: expect.not.stringContaining('0'.repeat(32)),
    });
  });

  it('heals receipts that no longer hold for a body checked on a thread, whose bytes come back', async () => {
    const host = await onboard('Receipts Thread');
    const service = serviceWith({ SYNC_MAX_PER_WINDOW: '100' });
    const body = JSON.stringify({ products: catalogue(200) }).padEnd(VALIDATION_THREAD_MIN_BYTES, ' ');
    const checked = checkedOnThreads();
    expect(answerOf(await send(service, host.key, body)).body.summary).toMatchObject({ created: 200 });
    await alterFirstReceipt(host.hostId);
    logs.length = 0;
    const healed = answerOf(await send(service, host.key, body));
    expect(checkedOnThreads()).toBe(checked + 2);
    expect(healed.body.summary).toMatchObject({ unchanged: 200 });
    expect(logs).toContain('a stored receipt no longer holds; the catalogue is validated in full');
    expect(await receiptsOf(host.hostId)).toMatchObject({
      current: true,
      receipts: expect.not.stringContaining('0'.repeat(32)),
    });
  });

  /** A receipt altered behind the service's back: its fingerprint no longer what its product's bytes give. */
  async function alterFirstReceipt(hostId: number): Promise<void> {
    const [stored] = (
      await db.query<{ text: string }>('SELECT text FROM sync_receipt_pieces WHERE host_id = $1 AND piece = 0', [
        hostId,
      ])
    ).rows;
    const lines = stored!.text.split('\n');
    const [digest, , id, externalId] = lines[0]!.split('\t');
    lines[0] = [digest, '0'.repeat(32), id, externalId].join('\t');
    await db.query('UPDATE sync_receipt_pieces SET text = $2 WHERE host_id = $1 AND piece = 0', [
      hostId,
      lines.join('\n'),
    ]);
    await db.query('UPDATE sync_receipts SET current = false WHERE host_id = $1', [hostId]);
  }

  async function receiptsOf(hostId: number) {
    const [row] = (
      await db.query<{ receipts: string; current: boolean }>(
        `SELECT (SELECT string_agg(text, '' ORDER BY piece) FROM sync_receipt_pieces WHERE host_id = $1) AS receipts, current
         FROM sync_receipts WHERE host_id = $1`,
        [hostId],
      )
    ).rows;
    return row;
  }

  it('counts in a large run’s duration the pieces written after its row, with and without an answer to keep', async () => {
    const host = await onboard('Slow Pieces');
    const service = serviceWith({ SYNC_MAX_PER_WINDOW: '100' });
    // A database that takes its time over a run's actions kept in pieces: 300 ms for their COPY.
    await db.query(
      `CREATE FUNCTION slow_pieces() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$`,
    );
    await db.query(
      'CREATE TRIGGER slow_pieces AFTER INSERT ON sync_run_action_pieces FOR EACH STATEMENT EXECUTE FUNCTION slow_pieces()',
    );
    try {
      // 1 500 products, past one piece of actions (1 024): first without a key, then changed with one and replayed.
      const sent = [{ products: catalogue(1500) }, { products: catalogue(1500, 1500) }];
      const first = answerOf(await send(service, host.key, sent[0]));
      const second = answerOf(await send(service, host.key, sent[1], { idempotencyKey: 'slow-1' }));
      const replayed = answerOf(await send(service, host.key, sent[1], { idempotencyKey: 'slow-1' }));
      expect([first.status, second.status, replayed.status]).toEqual([200, 200, 200]);
      expect(replayed.body.duration_ms).toBe(second.body.duration_ms);
      const { rows } = await db.query<{ id: string; duration_ms: number; before_row_ms: number }>(
        `SELECT id, duration_ms, extract(epoch FROM applied_at - started_at)::float8 * 1000 AS before_row_ms
         FROM sync_runs WHERE host_id = $1 ORDER BY applied_at`,
        [host.hostId],
      );
      expect(rows.map((row) => row.id)).toEqual([first.body.sync_id, second.body.sync_id]);
      for (const [k, answer] of [first, second].entries()) {
        const row = rows[k]!;
        expect(Number(row.duration_ms)).toBe(answer.body.duration_ms);
        // The run's row went in before the pieces: what the answer says took at least their 300 ms more.
        expect(Number(row.duration_ms)).toBeGreaterThanOrEqual(Number(row.before_row_ms) + 290);
      }
    } finally {
      await db.query('DROP TRIGGER slow_pieces ON sync_run_action_pieces');
      await db.query('DROP FUNCTION slow_pieces()');
    }
  });

  if (store === 'postgres') {
    it('answers busy when another sync holds the host longer than LOCK_TIMEOUT_MS', async () => {
      const host = await onboard('Busy');
      const service = serviceWith({}, undefined, { lockTimeoutMs: 200 });
      const admitted = await admit(service, host.key);
      await db.transaction(async (tx) => {
        await tx.query('SELECT 1 FROM hosts WHERE id = $1 FOR UPDATE', [host.hostId]);
        expect(await service.run(admitted, bodyOf({ products: catalogue(1) }), request)).toEqual({ kind: 'busy' });
      });
      expect(await listing(host.hostId)).toEqual([]);
    });
  }
});
