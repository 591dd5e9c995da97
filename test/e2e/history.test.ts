// Dry runs and the sync history (contract section 7): a dry run writes nothing but its run; runs page newest first,
// a run shows what it did to each product, and a provider never sees another's runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync } from '../support/api.js';
import {
  describeOnPostgres,
  STORES,
  startInProcessServer,
  startServer,
  type ServerUnderTest,
  type TestServer,
} from '../support/server.js';

describe.each(STORES)('dry runs and history (%s store)', (store) => {
  let server: ServerUnderTest;

  beforeAll(async () => {
    // Many applied syncs, and a window of dry runs smaller than the ten per applied sync it would be derived as: in
    // this process, where the Config is the test's own.
    server = await startInProcessServer(store, {
      env: { SYNC_MAX_PER_WINDOW: '100' },
      config: { dryRunMaxPerWindow: 3 },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function listing(key: string): Promise<any[]> {
    const answer = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: key });
    expect(answer.status).toBe(200);
    return answer.body.products;
  }

  it('a dry run answers with the plan and leaves every product row as it was', async () => {
    const host = await onboard(server, 'Dry Hosting');
    expect((await sync(server, host.key, [product('keep'), product('change'), product('drop')])).status).toBe(200);
    await sync(server, host.key, [product('keep'), product('change')]);
    const before = await listing(host.key);
    const rowsBefore =
      store === 'postgres' ? await server.sql('SELECT * FROM products ORDER BY host_id, external_id') : null;

    const dry = await sync(
      server,
      host.key,
      [product('keep'), product('change', { price: 1 }), product('drop'), product('new')],
      '?dry_run=true',
    );
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(dry.body.summary).toEqual({
      received: 4,
      created: 1,
      updated: 1,
      unchanged: 1,
      reactivated: 1,
      deactivated: 0,
    });
    expect(dry.headers.get('ratelimit-policy')).toBe('"dry-run";q=3;w=300');

    expect(await listing(host.key)).toEqual(before);
    if (rowsBefore)
      expect(await server.sql('SELECT * FROM products ORDER BY host_id, external_id')).toEqual(rowsBefore);

    // Its run is recorded, as a dry run.
    const run = await call(server, 'GET', `/api/v1/sync/runs/${dry.body.sync_id}`, { token: host.key });
    expect(run.status).toBe(200);
    expect(run.body.dry_run).toBe(true);

    // Dry runs have their own window.
    await sync(server, host.key, [product('keep')], '?dry_run=true');
    await sync(server, host.key, [product('keep')], '?dry_run=true');
    const limited = await sync(server, host.key, [product('keep')], '?dry_run=true');
    expect(limited.status).toBe(429);
    expect((await sync(server, host.key, [product('keep'), product('change')])).status).toBe(200);
  });

  it('lists runs newest first in pages, and shows one run with its per-product actions', async () => {
    const host = await onboard(server, 'History Hosting');
    const answers = [];
    answers.push(await sync(server, host.key, [product('a'), product('b'), product('c')]));
    answers.push(await sync(server, host.key, [product('a', { price: 2 }), product('b')]));
    answers.push(await sync(server, host.key, [product('c'), product('b'), product('a', { price: 2 })]));
    answers.push(await sync(server, host.key, [product('d')], '?dry_run=true'));
    answers.push(await sync(server, host.key, [product('a', { price: 3 })]));
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const newestFirst = answers.map((answer) => answer.body.sync_id).reverse();

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await call(server, 'GET', `/api/v1/sync/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        token: host.key,
      });
      expect(page.status, page.text).toBe(200);
      expect(page.body.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.runs.map((run: any) => run.sync_id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor !== null);
    expect(seen).toEqual(newestFirst);
    expect(pages).toBe(3);

    const all = await call(server, 'GET', '/api/v1/sync/runs', { token: host.key });
    expect(all.body.runs[0]).toEqual({
      sync_id: answers[4]!.body.sync_id,
      dry_run: false,
      applied_at: answers[4]!.body.applied_at,
      duration_ms: answers[4]!.body.duration_ms,
      summary: answers[4]!.body.summary,
    });

    // A run's detail is the sync's own answer.
    for (const answer of answers) {
      const run = await call(server, 'GET', `/api/v1/sync/runs/${answer.body.sync_id}`, { token: host.key });
      expect(run.status).toBe(200);
      expect(run.body).toEqual(answer.body);
    }
    expect(answers[2]!.body.products.map((p: any) => [p.external_id, p.action])).toEqual([
      ['c', 'reactivated'],
      ['b', 'unchanged'],
      ['a', 'unchanged'],
    ]);
    expect(answers[4]!.body.deactivated.map((p: any) => p.external_id).sort()).toEqual(['b', 'c']);
  });

  it('shows every action of a large run, kept in pieces past the first 1 024, and a small run’s in its row', async () => {
    const host = await onboard(server, 'Large History Hosting');
    // External ids with what COPY's text format escapes or could misread: backslashes, "\N", quotes, non-ASCII.
    const odd = (k: number) => (k % 7 === 0 ? `back\\slash \\N "q" ü 🦀 ${k}` : `p-${k}`);
    const first = Array.from({ length: 2600 }, (_, k) => product(odd(k)));
    const created = await sync(server, host.key, first);
    expect(created.status, created.text).toBe(200);
    // 2 100 kept (100 of them repriced), 500 dropped, 30 new: 2 630 actions, three pieces.
    const second = [
      ...first.slice(0, 2100).map((p, k) => (k < 100 ? { ...p, price: 1 } : p)),
      ...Array.from({ length: 30 }, (_, k) => product(`n-${k}`)),
    ];
    const answer = await sync(server, host.key, second);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.summary).toEqual({
      received: 2130,
      created: 30,
      updated: 100,
      unchanged: 2000,
      reactivated: 0,
      deactivated: 500,
    });
    const smallHost = await onboard(server, 'Small History Hosting');
    const small = await sync(server, smallHost.key, second.slice(0, 3));
    expect(small.status, small.text).toBe(200);

    for (const [sent, key] of [
      [created, host.key],
      [answer, host.key],
      [small, smallHost.key],
    ] as const) {
      const run = await call(server, 'GET', `/api/v1/sync/runs/${sent.body.sync_id}`, { token: key });
      expect(run.status).toBe(200);
      expect(run.body).toEqual(sent.body);
    }
    if (store === 'postgres') {
      const kept = await server.sql<{ id: string; in_row: boolean; pieces: number; lines: number }>(
        `SELECT r.id, r.actions IS NOT NULL AS in_row, count(p.piece)::int AS pieces,
                coalesce(sum(array_length(string_to_array(p.text, E'\\n'), 1)), 0)::int AS lines
         FROM sync_runs r LEFT JOIN sync_run_action_pieces p ON p.host_id = r.host_id AND p.sync_id = r.id
         WHERE r.id = ANY($1) GROUP BY r.id, r.actions ORDER BY r.id`,
        [[created, answer, small].map((sent) => sent.body.sync_id)],
      );
      expect(kept.map(({ in_row, pieces, lines }) => ({ in_row, pieces, lines }))).toEqual([
        { in_row: false, pieces: 3, lines: 2600 },
        { in_row: false, pieces: 3, lines: 2630 },
        { in_row: true, pieces: 0, lines: 0 },
      ]);
    }
  }, 120_000);

  it('refuses a limit out of range and a cursor it did not issue', async () => {
    const host = await onboard(server, 'Paging Hosting');
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=bm90LWFuLWlk']) {
      const answer = await call(server, 'GET', `/api/v1/sync/runs?${query}`, { token: host.key });
      expect(answer.status, query).toBe(422);
      expect(answer.body.errors[0].parameter).toBeTruthy();
    }
    expect((await call(server, 'GET', '/api/v1/sync/runs?limit=100', { token: host.key })).status).toBe(200);
  });

  it("keeps hosts apart: another provider's run is 404 and never listed", async () => {
    const a = await onboard(server, 'Runs Host A');
    const b = await onboard(server, 'Runs Host B');
    const runA = await sync(server, a.key, [product('a')]);
    const runB = await sync(server, b.key, [product('b')]);

    const listB = await call(server, 'GET', '/api/v1/sync/runs', { token: b.key });
    expect(listB.body.runs.map((run: any) => run.sync_id)).toEqual([runB.body.sync_id]);
    const stolen = await call(server, 'GET', `/api/v1/sync/runs/${runA.body.sync_id}`, { token: b.key });
    expect(stolen.status).toBe(404);
    expect(stolen.body.code).toBe('NOT_FOUND');
    const unknown = await call(server, 'GET', '/api/v1/sync/runs/syn_01M8000000000000000000000', { token: a.key });
    expect(unknown.status).toBe(404);

    for (const path of ['/api/v1/sync/runs', `/api/v1/sync/runs/${runA.body.sync_id}`]) {
      const anonymous = await call(server, 'GET', path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="hostdir"');
    }
  });
});

describeOnPostgres('a large run while a process of the version before is alive (postgres store)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '100' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const kept = async (syncId: string) =>
    (
      await server.sql<{ row_lines: number; pieces: number }>(
        `SELECT coalesce(array_length(string_to_array(r.actions, E'\\n'), 1), 0)::int AS row_lines,
                (SELECT count(*)::int FROM sync_run_action_pieces p WHERE p.host_id = r.host_id AND p.sync_id = r.id) AS pieces
         FROM sync_runs r WHERE r.id = $1`,
        [syncId],
      )
    )[0];

  it('keeps the run’s actions in its row, where that version reads them, until it has stopped', async () => {
    const host = await onboard(server, 'Deploy Overlap Hosting');
    // The heartbeat of a process before migration 054, as that version writes it.
    await server.sql(
      `INSERT INTO server_instances (id, started_at, seen_at) VALUES ('before-054', clock_timestamp(), clock_timestamp())`,
    );
    const catalogue = Array.from({ length: 1100 }, (_, k) => product(`o-${k}`));
    const during = await sync(server, host.key, catalogue);
    expect(during.status, during.text).toBe(200);
    expect(await kept(during.body.sync_id)).toEqual({ row_lines: 1100, pieces: 0 });
    expect((await call(server, 'GET', `/api/v1/sync/runs/${during.body.sync_id}`, { token: host.key })).body).toEqual(
      during.body,
    );

    // It stops (a clean stop deletes its row; a killed one is taken for dead ten seconds after its last heartbeat).
    await server.sql(
      `UPDATE server_instances SET seen_at = clock_timestamp() - interval '11 seconds' WHERE id = 'before-054'`,
    );
    const after = await sync(
      server,
      host.key,
      catalogue.map((p, k) => (k < 5 ? { ...p, price: 1 } : p)),
    );
    expect(after.status, after.text).toBe(200);
    expect(await kept(after.body.sync_id)).toEqual({ row_lines: 0, pieces: 2 });
    expect((await call(server, 'GET', `/api/v1/sync/runs/${after.body.sync_id}`, { token: host.key })).body).toEqual(
      after.body,
    );
  }, 60_000);
});
