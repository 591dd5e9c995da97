// Webhook watches end to end: deliveries to a local receiver (allowed by ALLOW_PRIVATE_TARGETS on that server),
// signed per Standard Webhooks and verified by the standardwebhooks package's own Webhook.verify; an acknowledged
// event never sent again, even with two processes delivering from one database; a receiver failing for a day turns
// the watch off with the reason shown; private targets refused with 422 where the operator has not allowed them; a
// sync only notes what it changed, and the matching, out of its transaction, loses nothing when it fails midway.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, type Onboarded } from '../support/api.js';
import { describeOnPostgres, startInProcessServer, STORES, type ServerUnderTest } from '../support/server.js';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver: keeps what it is sent, answers `status`. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  status = 200;
  #server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      this.deliveries.push({ headers: request.headers, body });
      response.writeHead(this.status).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async count(count: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.deliveries.length} deliveries, not ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const eur = (id: string, overrides: Record<string, unknown> = {}) =>
  product(id, { currency: 'eur', pricing_tiers: null, ...overrides });

const QUICK = { watchPollMs: 100 };

describe.each(STORES)('webhook watches (%s store)', (store) => {
  const receiver = new Receiver();
  let hookUrl: string;
  let server: ServerUnderTest;
  let guarded: ServerUnderTest;
  let host: Onboarded;

  beforeAll(async () => {
    hookUrl = await receiver.start();
    [server, guarded] = await Promise.all([
      startInProcessServer(store, { env: { SYNC_MAX_PER_WINDOW: '100', ALLOW_PRIVATE_TARGETS: '1' }, config: QUICK }),
      startInProcessServer('embedded', { config: QUICK }),
    ]);
    host = await onboard(server, 'Hooked Hosting');
    expect(
      (
        await call(server, 'POST', '/api/v1/sync/products', {
          token: host.key,
          json: { products: [eur('a', { price: 20 })] },
        })
      ).status,
    ).toBe(200);
  });

  afterAll(async () => {
    await Promise.all([server?.stop(), guarded?.stop()]);
    await receiver.stop();
  });

  it('signs each delivery (verified by Webhook.verify) and never sends an acknowledged event again', async () => {
    const listed = await call(server, 'GET', `/api/v1/directory/products?host=${host.slug}&include_stale=1`);
    const productId = listed.body.products[0].id as string;
    const created = await call(server, 'POST', '/api/v1/watches', {
      json: { webhook_url: hookUrl, product_id: productId },
    });
    expect(created.status).toBe(201);
    expect(created.body.watch.status).toBe('active');
    const secret = created.body.webhook_secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(
      (
        await call(server, 'POST', '/api/v1/sync/products', {
          token: host.key,
          json: { products: [eur('a', { price: 15 })] },
        })
      ).status,
    ).toBe(200);
    await receiver.count(1);
    const [delivery] = receiver.deliveries;
    const verified = new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(verified.type).toBe('product.price_dropped');
    expect(verified.data).toMatchObject({
      event_id: delivery!.headers['webhook-id'],
      product_id: productId,
      previous_base_monthly_price: 20,
      base_monthly_price: 15,
      currency: 'EUR',
    });
    // A wrong secret fails the same verifier: the signature is the watch's own.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        delivery!.body,
        delivery!.headers as Record<string, string>,
      ),
    ).toThrow();
    await expect
      .poll(async () => (await call(server, 'GET', `/api/v1/watches/${created.body.token}`)).body.delivered)
      .toBe(1);
    // Many rounds later, still one delivery of that event.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.deliveries).toHaveLength(1);
    const watch = await call(server, 'GET', `/api/v1/watches/${created.body.token}`);
    expect(watch.body).toMatchObject({ pending_events: 0, delivered: 1, status: 'active' });
    expect((await call(server, 'DELETE', `/api/v1/watches/${created.body.token}`)).status).toBe(204);
    expect((await call(server, 'GET', `/api/v1/watches/${created.body.token}`)).status).toBe(404);
  });

  it('tells a watched plan that comes back in stock, and nothing of its stock merely changing', async () => {
    const sync = async (stock: number | null) =>
      expect(
        (
          await call(server, 'POST', '/api/v1/sync/products', {
            token: host.key,
            json: { products: [eur('a', { price: 15, stock })] },
          })
        ).status,
      ).toBe(200);
    await sync(0);
    const listed = await call(server, 'GET', `/api/v1/directory/products?host=${host.slug}&include_stale=1`);
    const productId = listed.body.products[0].id as string;
    const created = await call(server, 'POST', '/api/v1/watches', {
      json: { webhook_url: hookUrl, product_id: productId },
    });
    expect(created.status).toBe(201);
    const secret = created.body.webhook_secret as string;
    const before = receiver.deliveries.length;
    await sync(4);
    await receiver.count(before + 1);
    const delivery = receiver.deliveries[before]!;
    const verified = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(verified.type).toBe('product.back_in_stock');
    expect(verified.data).toMatchObject({ product_id: productId, base_monthly_price: 15 });
    // Fewer units left, or sold out again: no event.
    await sync(2);
    await sync(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.deliveries).toHaveLength(before + 1);
    expect((await call(server, 'DELETE', `/api/v1/watches/${created.body.token}`)).status).toBe(204);
    await sync(null);
  });

  it('tells a search of a plan changed into matching it, and of new words only the watches with words', async () => {
    const watch = async (search: string) => {
      const created = await call(server, 'POST', '/api/v1/watches', { json: { webhook_url: hookUrl, search } });
      expect(created.status).toBe(201);
      return created.body.watch.id as string;
    };
    const cheap = await watch('category=vps_cloud&display_currency=EUR&max_price=12');
    const worded = await watch('q=turbocharged');
    const told = (watchId: string) =>
      receiver.deliveries
        .map(
          (delivery) =>
            JSON.parse(delivery.body) as { type: string; data: { watch_id: string; product: { name: string } } },
        )
        .filter((payload) => payload.data.watch_id === watchId)
        .map((payload) => `${payload.type} ${payload.data.product.name}`);
    const syncAll = async (products: Record<string, unknown>[]) =>
      expect(
        (await call(server, 'POST', '/api/v1/sync/products', { token: host.key, json: { products } })).status,
      ).toBe(200);
    await syncAll([eur('a', { price: 15 }), eur('b', { price: 20, name: 'Plan B' })]);
    await syncAll([eur('a', { price: 15 }), eur('b', { price: 10, name: 'Plan B', description: 'Turbocharged now' })]);
    await expect.poll(() => told(cheap).length).toBe(1);
    await expect.poll(() => told(worded).length).toBe(1);
    await syncAll([
      eur('a', { price: 15, description: 'Turbocharged as well' }),
      eur('b', { price: 10, name: 'Plan B', description: 'Turbocharged now' }),
    ]);
    await expect.poll(() => told(worded).length).toBe(2);
    // Rounds later: a dearer plan with new words never met the price limit, and is never told to it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(told(cheap)).toEqual(['product.matched Plan B']);
    expect(told(worded)).toEqual(['product.matched Plan B', 'product.matched Cloud VPS a']);
  });

  it('refuses loopback, private and link-local webhook targets unless the operator allows them', async () => {
    const guardedHost = await onboard(guarded, 'Guarded Hosting');
    expect(guardedHost.slug).toBeTruthy();
    for (const target of [
      'http://127.0.0.1:9/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'ftp://example.org/hook',
    ]) {
      const answer = await call(guarded, 'POST', '/api/v1/watches', {
        json: { webhook_url: target, search: 'category=vps_cloud' },
      });
      expect(answer.status, target).toBe(422);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body.errors[0].pointer).toBe('/webhook_url');
    }
  });
});

describeOnPostgres('webhook watches delivered by two processes, and turned off after a day (postgres store)', () => {
  const receiver = new Receiver();
  let hookUrl: string;
  let first: ServerUnderTest;
  let second: ServerUnderTest;
  let host: Onboarded;

  beforeAll(async () => {
    hookUrl = await receiver.start();
    const env = { SYNC_MAX_PER_WINDOW: '100', ALLOW_PRIVATE_TARGETS: '1' };
    first = await startInProcessServer('postgres', { env, config: QUICK });
    second = await startInProcessServer('postgres', { env, config: QUICK, databaseUrl: first.databaseUrl! });
    host = await onboard(first, 'Raced Hosting');
  });

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await receiver.stop();
  });

  it('delivers each event once to a receiver that acknowledges it, whichever process takes it', async () => {
    const created = await call(first, 'POST', '/api/v1/watches', {
      json: { webhook_url: hookUrl, search: 'category=vps_cloud&q=raced' },
    });
    expect(created.status).toBe(201);
    const products = Array.from({ length: 30 }, (_, i) => eur(`r${i}`, { name: `Raced plan ${i}` }));
    expect((await call(first, 'POST', '/api/v1/sync/products', { token: host.key, json: { products } })).status).toBe(
      200,
    );
    await receiver.count(30);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const ids = receiver.deliveries.map((delivery) => delivery.headers['webhook-id']);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    expect(await first.sql('SELECT count(*)::int AS n FROM watch_events')).toEqual([{ n: 0 }]);
  });

  it('turns a watch off once its deliveries failed for a day, with the reason', async () => {
    receiver.status = 500;
    const created = await call(first, 'POST', '/api/v1/watches', {
      json: { webhook_url: hookUrl, search: 'category=vps_cloud&q=failing' },
    });
    expect(
      (
        await call(first, 'POST', '/api/v1/sync/products', {
          token: host.key,
          json: { products: [eur('f', { name: 'Failing plan' })] },
        })
      ).status,
    ).toBe(200);
    const token = created.body.token as string;
    await expect
      .poll(
        async () =>
          (await first.sql<{ n: number }>('SELECT count(*)::int AS n FROM watch_events WHERE attempts > 0'))[0]!.n,
      )
      .toBe(1);
    expect((await call(first, 'GET', `/api/v1/watches/${token}`)).body.status).toBe('active');
    // The event is a day old, and due again: its next failure is the last.
    await first.sql(`UPDATE watch_events SET occurred_at = now() - interval '25 hours', next_attempt_at = now()`);
    await expect
      .poll(async () => (await call(first, 'GET', `/api/v1/watches/${token}`)).body.status, { timeout: 10_000 })
      .toBe('disabled');
    const watch = await call(first, 'GET', `/api/v1/watches/${token}`);
    expect(watch.body.disabled_reason).toBe('deliveries failed for a day; the last: the receiver answered 500');
  });
});

describeOnPostgres('watch matching out of the sync (postgres store)', () => {
  let server: ServerUnderTest;
  let host: Onboarded;
  const count = async (table: string) =>
    (await server.sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
  const syncPrice = async (price: number) =>
    expect(
      (
        await call(server, 'POST', '/api/v1/sync/products', {
          token: host.key,
          json: { products: [eur('m', { price, name: 'Matched plan' })] },
        })
      ).status,
    ).toBe(200);

  beforeAll(async () => {
    // The delivery loop runs its first round at the start and then not for an hour: the test matches by hand.
    server = await startInProcessServer('postgres', {
      env: { SYNC_MAX_PER_WINDOW: '100', ALLOW_PRIVATE_TARGETS: '1' },
      config: { watchPollMs: 3_600_000 },
    });
    host = await onboard(server, 'Noted Hosting');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('notes in the sync, matches in batches, and keeps the notes of a matching that failed', async () => {
    const created = await call(server, 'POST', '/api/v1/watches', {
      json: { webhook_url: 'http://127.0.0.1:9/hook', search: 'category=vps_cloud&display_currency=EUR&max_price=30' },
    });
    expect(created.status).toBe(201);
    await syncPrice(20);
    // The sync wrote a note of its new plan, and no event: the matching is not the sync's.
    expect(await count('watch_changes')).toBe(1);
    expect(await count('watch_events')).toBe(0);
    // A matching that fails before its end (here: rolled back) leaves the note to the next.
    const client = new pg.Client({ connectionString: server.databaseUrl! });
    await client.connect();
    try {
      await client.query('BEGIN');
      expect((await client.query('SELECT match_watch_changes(1000) AS n')).rows).toEqual([{ n: 1 }]);
      expect((await client.query('SELECT kind FROM watch_events')).rows).toEqual([{ kind: 'matched' }]);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
    expect(await count('watch_changes')).toBe(1);
    expect(await count('watch_events')).toBe(0);
    expect(await server.sql('SELECT match_watch_changes(1000) AS n')).toEqual([{ n: 1 }]);
    expect(await server.sql('SELECT match_watch_changes(1000) AS n')).toEqual([{ n: 0 }]);
    expect(await server.sql('SELECT kind, base_price::float8 AS price FROM watch_events')).toEqual([
      { kind: 'matched', price: 20 },
    ]);
    // Two syncs before the next round: one event, from the price before the first to the price now.
    await syncPrice(15);
    await syncPrice(10);
    expect(await count('watch_changes')).toBe(2);
    expect(await server.sql('SELECT match_watch_changes(1000) AS n')).toEqual([{ n: 2 }]);
    expect(
      await server.sql(
        `SELECT kind, previous_base_price::float8 AS previous, base_price::float8 AS price FROM watch_events
         ORDER BY occurred_at`,
      ),
    ).toEqual([
      { kind: 'matched', previous: null, price: 20 },
      { kind: 'price_dropped', previous: 20, price: 10 },
    ]);
    expect(await count('watch_changes')).toBe(0);
    // A dearer price, or the same content sent again, notes a change but tells no one; an unchanged sync notes nothing.
    await syncPrice(12);
    await syncPrice(12);
    expect(await count('watch_changes')).toBe(1);
    expect(await server.sql('SELECT match_watch_changes(1000) AS n')).toEqual([{ n: 1 }]);
    expect(await count('watch_events')).toBe(2);
    // A watch confirmed after a sync is told nothing of it; the watch before is.
    await syncPrice(9);
    const late = await call(server, 'POST', '/api/v1/watches', {
      json: { webhook_url: 'http://127.0.0.1:9/hook', search: 'category=vps_cloud' },
    });
    expect(late.status).toBe(201);
    expect(await server.sql('SELECT match_watch_changes(1000) AS n')).toEqual([{ n: 1 }]);
    expect(await server.sql('SELECT watch_id, kind FROM watch_events WHERE base_price = 9')).toEqual([
      { watch_id: created.body.watch.id, kind: 'price_dropped' },
    ]);
  });
});
