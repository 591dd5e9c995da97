// Simultaneous syncs (contract section 6): of one host exactly one is applied and the others get 429, never 500;
// different hosts do not take one another's slot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, onboard, product, sync } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import { listingOf } from './assertions.js';

function catalogue(tag: string): Record<string, unknown>[] {
  return Array.from({ length: 20 }, (_, i) => product(`${tag}-${i}`));
}

describe.each(STORES)('concurrent syncs (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    // The default window: one applied sync per host per 300 s.
    server = await startServer(store);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('applies exactly one of ten simultaneous syncs of one host', async () => {
    const host = await onboard(server, 'Racing Hosting');
    // Each request sends a different catalogue, so that the one applied can be recognized.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) => sync(server, host.key, catalogue(`run${n}`))),
    );

    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, answers.map((answer) => answer.text.slice(0, 200)).join('\n')).toEqual([
      200,
      ...Array(9).fill(429),
    ]);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }

    const winner = answers.find((answer) => answer.status === 200)!;
    const runs = await admin(server, 'GET', `/hosts/${host.slug}/syncs`);
    expect(runs.body.runs).toHaveLength(1);
    expect(runs.body.runs[0].sync_id).toBe(winner.body.sync_id);
    expect(runs.body.runs[0].summary.created).toBe(20);

    // The listing holds the winner's catalogue and nothing of the others.
    const listed = await listingOf(server, host.key, 'all');
    expect(listed.map((p) => p.id).sort()).toEqual(winner.body.products.map((p: any) => p.id).sort());
    const tag = winner.body.products[0].external_id.split('-')[0];
    for (const p of listed) expect(p.external_id.startsWith(`${tag}-`)).toBe(true);
  });

  it('applies one sync for each of three hosts syncing at once', async () => {
    const hosts = await Promise.all(['North', 'South', 'East'].map((name) => onboard(server, `${name} Hosting`)));
    const answers = await Promise.all(
      hosts.flatMap((host, h) =>
        Array.from({ length: 4 }, (_, n) =>
          sync(server, host.key, catalogue(`h${h}r${n}`)).then((answer) => ({ h, answer })),
        ),
      ),
    );
    for (let h = 0; h < hosts.length; h++) {
      const mine = answers
        .filter((entry) => entry.h === h)
        .map((entry) => entry.answer.status)
        .sort();
      expect(mine).toEqual([200, 429, 429, 429]);
      const runs = await admin(server, 'GET', `/hosts/${hosts[h]!.slug}/syncs`);
      expect(runs.body.runs).toHaveLength(1);
      expect(await listingOf(server, hosts[h]!.key)).toHaveLength(20);
    }
    expect(answers.some((entry) => entry.answer.status >= 500)).toBe(false);
  });

  if (store === 'postgres') {
    it('applies exactly one sync when two server instances share the database', async () => {
      const second = await startServer('postgres', { databaseUrl: server.databaseUrl! });
      try {
        const host = await onboard(server, 'Two Instances Hosting');
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, n) => sync(n % 2 === 0 ? server : second, host.key, catalogue(`inst${n}`))),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(429)]);
        const runs = await admin(second, 'GET', `/hosts/${host.slug}/syncs`);
        expect(runs.body.runs).toHaveLength(1);
        expect(await listingOf(second, host.key)).toHaveLength(20);
      } finally {
        await second.stop();
      }
    });
  }
});
