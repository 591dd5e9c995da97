// A provider's requests arriving together: their Idempotency-Key answers and refusals are kept by many writers at
// once, and the caps on them hold exactly, with no transaction failing on the way (concurrent prunes of one host's
// keys used to deadlock: 40P01, answered 500). On both stores; the deadlock itself can only happen on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slugFromName } from '../../src/catalog/slugs.js';
import type { Database } from '../../src/store/db.js';
import { insertHost } from '../../src/store/hosts.js';
import { claimIdempotencyKey, keepRefusal, type KeptAnswerCaps } from '../../src/store/idempotency.js';
import { touchInstance } from '../../src/store/instances.js';
import { recordRefusal } from '../../src/store/sync-runs.js';
import { openTestDatabase } from '../support/databases.js';
import { STORES } from '../support/server.js';

describe.each(STORES)('caps under concurrency (%s store)', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  const instance = `ins_caps_${store}`;
  const policy = { ttlSeconds: 3600, leaseSeconds: 300, maxKeysPerHost: 1000, maxBytesPerHost: 1 << 30, instance };

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    await touchInstance(db, instance);
  });

  afterAll(async () => {
    await close?.();
  });

  async function host(name: string): Promise<number> {
    return (await insertHost(db, { slug: `${slugFromName(name)}-${store}`, name, default_currency: 'USD' })).id;
  }

  async function claimAll(hostId: number, count: number, prefix: string) {
    const claims = [];
    for (let k = 0; k < count; k++) {
      const claimed = await claimIdempotencyKey(db, hostId, `${prefix}-${String(k).padStart(4, '0')}`, policy);
      if (claimed.kind !== 'claimed') throw new Error(`key ${k} was not claimed: ${claimed.kind}`);
      claims.push(claimed.claim);
    }
    return claims;
  }

  async function finished(hostId: number): Promise<{ keys: number; bytes: number; running: number }> {
    const { rows } = await db.query<{ keys: number; bytes: number; running: number }>(
      `SELECT count(*) FILTER (WHERE status = 'done')::int AS keys,
              coalesce(sum(octet_length(response_body)) FILTER (WHERE status = 'done'), 0)::int AS bytes,
              count(*) FILTER (WHERE status = 'running')::int AS running
       FROM idempotency_keys WHERE host_id = $1`,
      [hostId],
    );
    return rows[0]!;
  }

  const answer = (body: string) => ({ status: 422, headers: { 'content-type': 'application/problem+json' }, body });

  it('keeps at most maxKeysPerHost finished answers, the newest, when 40 are kept at once', async () => {
    const hostId = await host('Many Keys At Once');
    const caps: KeptAnswerCaps = { maxKeysPerHost: 7, maxBytesPerHost: 1 << 30 };
    const claims = await claimAll(hostId, 40, 'many');
    const kept = await Promise.all(
      claims.map((claim, k) =>
        keepRefusal(db, hostId, { claim, fingerprint: `f${k}`, answer: answer(`{"n":${k}}`), caps }),
      ),
    );
    expect(kept.every(Boolean)).toBe(true);
    expect(await finished(hostId)).toEqual({ keys: 7, bytes: expect.any(Number), running: 0 });
    // The newest claims are the ones kept.
    const { rows } = await db.query<{ key: string }>(
      `SELECT key FROM idempotency_keys WHERE host_id = $1 ORDER BY created_at DESC, key`,
      [hostId],
    );
    const { rows: newest } = await db.query<{ key: string }>(
      `SELECT key FROM unnest($1::text[]) WITH ORDINALITY AS k (key, n) ORDER BY n DESC LIMIT 7`,
      [claims.map((claim) => claim.key)],
    );
    expect(rows.map((row) => row.key).sort()).toEqual(newest.map((row) => row.key).sort());
  });

  it('keeps the bytes of finished answers within maxBytesPerHost, when 30 are kept at once', async () => {
    const hostId = await host('Many Bytes At Once');
    const caps: KeptAnswerCaps = { maxKeysPerHost: 1000, maxBytesPerHost: 10_000 };
    const claims = await claimAll(hostId, 30, 'bytes');
    const body = JSON.stringify({ detail: 'x'.repeat(1_500) });
    await Promise.all(
      claims.map((claim, k) => keepRefusal(db, hostId, { claim, fingerprint: `f${k}`, answer: answer(body), caps })),
    );
    const held = await finished(hostId);
    expect(held.bytes).toBeLessThanOrEqual(10_000);
    // As many as fit: 6 answers of 1 514 bytes.
    expect(held.keys).toBe(Math.floor(10_000 / Buffer.byteLength(body)));
  });

  it("leaves other hosts' answers alone", async () => {
    const [a, b] = [await host('Capped Host A'), await host('Capped Host B')];
    const caps: KeptAnswerCaps = { maxKeysPerHost: 2, maxBytesPerHost: 1 << 30 };
    const [claimsA, claimsB] = [await claimAll(a, 5, 'a'), await claimAll(b, 3, 'b')];
    await Promise.all([
      ...claimsA.map((claim, k) => keepRefusal(db, a, { claim, fingerprint: `a${k}`, answer: answer('{}'), caps })),
      ...claimsB.map((claim, k) =>
        keepRefusal(db, b, { claim, fingerprint: `b${k}`, answer: answer('{}'), caps: { ...caps, maxKeysPerHost: 3 } }),
      ),
    ]);
    expect((await finished(a)).keys).toBe(2);
    expect((await finished(b)).keys).toBe(3);
  });

  it('records exactly the budget of refusals when 25 are recorded at once', async () => {
    const hostId = await host('Refused Together');
    const recorded = await Promise.all(
      Array.from({ length: 25 }, () => recordRefusal(db, hostId, { seconds: 300, budget: 6 })),
    );
    expect(recorded.filter(Boolean)).toHaveLength(6);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sync_refusals WHERE host_id = $1', [
      hostId,
    ]);
    expect(rows[0]!.n).toBe(6);
  });
});
