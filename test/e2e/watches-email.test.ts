// Email watches end to end, on both stores, against a real SMTP server this test starts: subscribe, confirm through
// the mailed link, a sync lowers a price or adds a matching plan, exactly one digest arrives, and its one-click
// unsubscribe (RFC 8058) works; a rolled-back sync tells no one; a server killed between the commit and the mail
// mails after its restart; floods of subscriptions get 429.
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../src/store/embedded.js';
import { call, onboard, product, type Onboarded } from '../support/api.js';
import { copyEmbeddedTemplate, startServer, STORES, type StoreKind, type TestServer } from '../support/server.js';

interface Mail {
  to: string;
  headers: Map<string, string>;
  text: string;
}

/**
 * A local SMTP server that keeps every message; `down` refuses them (the sender must try again later);
 * `answersToLose` messages are kept but answered with a failure, as when the server's answer is lost.
 */
class MailSink {
  readonly mails: Mail[] = [];
  down = false;
  answersToLose = 0;
  #server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      let data = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (data += chunk));
      stream.on('end', () => {
        if (this.down) return callback(Object.assign(new Error('try later'), { responseCode: 451 }));
        this.mails.push(parseMail(session.envelope.rcptTo[0]!.address, data));
        if (this.answersToLose > 0) {
          this.answersToLose -= 1;
          return callback(Object.assign(new Error('try later'), { responseCode: 451 }));
        }
        callback();
      });
    },
  });
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  to(address: string): Mail[] {
    return this.mails.filter((mail) => mail.to === address);
  }

  async next(address: string, count: number, timeoutMs = 30_000): Promise<Mail> {
    const deadline = Date.now() + timeoutMs;
    while (this.to(address).length < count) {
      if (Date.now() > deadline) throw new Error(`no mail number ${count} to ${address} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.to(address)[count - 1]!;
  }
}

/** Headers (unfolded) and the text part, quoted-printable decoded. */
function parseMail(to: string, raw: string): Mail {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = new Map<string, string>();
  for (const line of head!.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = rest.join('\n\n');
  if (/quoted-printable/i.test(headers.get('content-transfer-encoding') ?? '')) {
    body = Buffer.from(
      body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { to, headers, text: body };
}

const linkIn = (text: string, path: string) => {
  const found = new RegExp(`https?://[^\\s]+${path}\\?token=[\\w]+`).exec(text);
  if (!found) throw new Error(`no ${path} link in:\n${text}`);
  return found[0];
};

const FAILING_REQUEST = 'fail-after-writes';
const FAULT = [
  `CREATE FUNCTION test_fail_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`,
  `CREATE TRIGGER test_fail_run BEFORE INSERT ON sync_runs FOR EACH ROW WHEN (NEW.request_id = '${FAILING_REQUEST}') EXECUTE FUNCTION test_fail_run()`,
];

describe.each(STORES)('email watches (%s store)', (store: StoreKind) => {
  const sink = new MailSink();
  let server: TestServer;
  let dataDir: string | null = null;
  let host: Onboarded;
  /** the catalogue as last sent: every sync sends it whole */
  const catalogue = new Map<string, Record<string, unknown>>();

  const syncCatalogue = async (changes: Record<string, Record<string, unknown> | null>, requestId?: string) => {
    const next = new Map(catalogue);
    for (const [id, change] of Object.entries(changes)) {
      if (change === null) next.delete(id);
      else next.set(id, { ...product(id, { currency: 'eur', pricing_tiers: null }), ...next.get(id), ...change });
    }
    const answer = await call(server, 'POST', '/api/v1/sync/products', {
      token: host.key,
      json: { products: [...next.values()] },
      headers: requestId ? { 'x-request-id': requestId } : {},
    });
    if (answer.status === 200) {
      catalogue.clear();
      for (const [id, value] of next) catalogue.set(id, value);
    }
    return answer;
  };

  /** Subscribes an address to a search, confirms it through the mailed link, and returns the watch's token. */
  const subscribe = async (email: string, watched: { search: string } | { product_id: string }) => {
    const before = sink.to(email).length;
    const created = await call(server, 'POST', '/api/v1/watches', { json: { email, ...watched } });
    expect(created.status).toBe(201);
    expect(created.body.watch.status).toBe('pending_confirmation');
    const confirmation = await sink.next(email, before + 1);
    expect(confirmation.headers.get('subject')).toBe('hostdir: confirm your watch');
    const link = linkIn(confirmation.text, '/watches/confirm');
    // The link shows a page with a button (a mail scanner fetching it confirms nothing); the button confirms.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<button type="submit">Confirm</button>');
    expect((await call(server, 'GET', `/api/v1/watches/${created.body.token}`)).body.status).toBe(
      'pending_confirmation',
    );
    const token = new URL(link).searchParams.get('token')!;
    const confirmed = await fetch(`${server.url}/watches/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${token}`,
    });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Watch confirmed');
    expect((await call(server, 'GET', `/api/v1/watches/${created.body.token}`)).body.status).toBe('active');
    return created.body.token as string;
  };

  beforeAll(async () => {
    await sink.start();
    const env = { SYNC_MAX_PER_WINDOW: '100', SMTP_URL: `smtp://127.0.0.1:${sink.port}/?from=watch@hostdir.test` };
    if (store === 'postgres') {
      server = await startServer(store, { env });
      for (const statement of FAULT) await server.sql(statement);
    } else {
      dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-watches-'));
      const db = await EmbeddedDatabase.open(await copyEmbeddedTemplate(dataDir));
      for (const statement of FAULT) await db.query(statement);
      await db.close();
      server = await startServer(store, { env, dataDir });
    }
    host = await onboard(server, 'Watched Hosting');
    expect((await syncCatalogue({ small: { price: 10 }, large: { price: 30 } })).status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
    await sink.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('mails one digest with a working one-click unsubscribe when a sync lowers a watched price', async () => {
    const email = 'cheaper@example.net';
    const token = await subscribe(email, { search: 'category=vps_cloud&display_currency=EUR&max_price=40' });
    expect(sink.to(email)).toHaveLength(1);
    expect((await syncCatalogue({ small: { price: 8 } })).status).toBe(200);
    const digest = await sink.next(email, 2);
    expect(digest.headers.get('subject')).toBe(
      'hostdir: 1 change to the search category=vps_cloud&display_currency=EUR&max_price=40',
    );
    expect(digest.text).toContain('Cheaper now:');
    expect(digest.text).toContain('€10.00 → €8.00 a month');
    const unsubscribe = linkIn(digest.text, '/watches/unsubscribe');
    expect(digest.headers.get('list-unsubscribe')).toMatch(new RegExp(`^<${unsubscribe.replace(/[?.]/g, '\\$&')}>`));
    expect(digest.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    // A second drop within the hour is gathered for the next message, not mailed now (its event is written by the
    // delivery loop's next round).
    expect((await syncCatalogue({ large: { price: 25 } })).status).toBe(200);
    await expect
      .poll(async () => (await call(server, 'GET', `/api/v1/watches/${token}`)).body.pending_events, {
        timeout: 15_000,
      })
      .toBe(1);
    expect(sink.to(email)).toHaveLength(2);
    // A GET of the link shows the button and unsubscribes nothing; the mail program's POST unsubscribes.
    const page = await fetch(unsubscribe);
    expect(await page.text()).toContain('<button type="submit">Unsubscribe</button>');
    expect((await call(server, 'GET', `/api/v1/watches/${token}`)).status).toBe(200);
    const oneClick = await fetch(unsubscribe, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect((await call(server, 'GET', `/api/v1/watches/${token}`)).status).toBe(404);
    if (store === 'postgres') expect(await server.sql('SELECT 1 FROM watches WHERE email = $1', [email])).toEqual([]);
  });

  it('mails a new plan that matches a watched search', async () => {
    const email = 'newplans@example.net';
    await subscribe(email, { search: 'q=gaming&category=vps_cloud' });
    expect((await syncCatalogue({ game: { name: 'Gaming VPS Turbo', price: 15 } })).status).toBe(200);
    const digest = await sink.next(email, 2);
    expect(digest.text).toContain('New matches:');
    expect(digest.text).toContain('Gaming VPS Turbo (Watched Hosting) now matches');
    expect(digest.text).toMatch(/\/products\/prd_\w+/);
  });

  it('tells no one of a sync that rolled back, nor of one refused', async () => {
    const email = 'rollback@example.net';
    const token = await subscribe(email, { search: 'category=vps_cloud' });
    expect((await syncCatalogue({ ghost: { name: 'Ghost plan' } }, FAILING_REQUEST)).status).toBe(500);
    expect((await syncCatalogue({ refused: { name: 'Refused plan', price: 'free' } })).status).toBe(422);
    const watch = await call(server, 'GET', `/api/v1/watches/${token}`);
    expect(watch.body.pending_events).toBe(0);
    // A sync after them is told, alone: the watch saw nothing of the two before.
    expect((await syncCatalogue({ real: { name: 'Real plan' } })).status).toBe(200);
    const digest = await sink.next(email, 2);
    expect(digest.text).toContain('Real plan');
    expect(digest.text).not.toContain('Ghost plan');
    expect(digest.text).not.toContain('Refused plan');
  });

  it('mails after a restart what a killed server had committed but not sent', async () => {
    const email = 'crash@example.net';
    await subscribe(email, { search: 'category=vps_cloud&q=crash' });
    sink.down = true;
    expect((await syncCatalogue({ crash: { name: 'Crash test plan' } })).status).toBe(200);
    await server.kill('SIGKILL');
    sink.down = false;
    await server.restart();
    const digest = await sink.next(email, 2);
    expect(digest.text).toContain('Crash test plan');
  });

  it('sends a digest whose delivery it could not confirm again, with the same Message-ID', async () => {
    const email = 'twice@example.net';
    await subscribe(email, { search: 'category=vps_cloud&q=twice' });
    sink.answersToLose = 1;
    expect((await syncCatalogue({ twice: { name: 'Twice told plan' } })).status).toBe(200);
    const first = await sink.next(email, 2);
    const again = await sink.next(email, 3);
    expect(again.text).toBe(first.text);
    expect(first.headers.get('message-id')).toMatch(/^<digest\.[0-9a-f]{40}@127\.0\.0\.1>$/);
    expect(again.headers.get('message-id')).toBe(first.headers.get('message-id'));
  });

  it('offers the forms on the pages, which work without script and answer a page', async () => {
    const category = await (await fetch(`${server.url}/categories/vps_cloud?max_price=40&display_currency=EUR`)).text();
    const form =
      /<form class="watch" action="\/watches" method="post" aria-label="Watch this search">[\s\S]*?<\/form>/.exec(
        category,
      )?.[0];
    expect(form).toContain('<input type="hidden" name="search" value="category=vps_cloud&amp;');
    const search = /name="search" value="([^"]*)"/.exec(form!)![1]!.replaceAll('&amp;', '&');
    const listed = await call(server, 'GET', `/api/v1/directory/products?host=${host.slug}&include_stale=1`);
    const plan = await (await fetch(`${server.url}/products/${listed.body.products[0].id}`)).text();
    expect(plan).toContain('aria-label="Watch this plan"');
    const posted = await fetch(`${server.url}/watches`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'form@example.net', search }).toString(),
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain('Check your inbox');
    expect((await sink.next('form@example.net', 1)).text).toContain('/watches/confirm?token=wcf_');
    const refused = await fetch(`${server.url}/watches`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'not an address', search }).toString(),
    });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await refused.text()).toContain('That is not an email address.');
  });

  it('refuses invalid searches as the directory does, and floods with 429', async () => {
    const invalid = await call(server, 'POST', '/api/v1/watches', {
      json: { email: 'x@example.net', search: 'sort=cheapest&min_ram_gb=lots' },
    });
    const directory = await call(server, 'GET', '/api/v1/directory/products?sort=cheapest&min_ram_gb=lots');
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toContain('application/problem+json');
    expect(invalid.body.errors).toEqual(directory.body.errors);
    // One address: three confirmations waiting, then 429 until it confirms them.
    for (let i = 0; i < 3; i++) {
      const answer = await call(server, 'POST', '/api/v1/watches', {
        json: { email: 'stranger@example.net', search: `category=vps_cloud&q=w${i}` },
      });
      expect(answer.status).toBe(201);
    }
    const fourth = await call(server, 'POST', '/api/v1/watches', {
      json: { email: 'stranger@example.net', search: 'category=vps_cloud' },
    });
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('content-type')).toContain('application/problem+json');
    expect(sink.to('stranger@example.net')).toHaveLength(3);
    // One client: past its hourly requests, 429 for any address, from the form too.
    let status = 0;
    for (let i = 0; i < 25 && status !== 429; i++) {
      status = (
        await call(server, 'POST', '/api/v1/watches', {
          json: { email: `flood${i}@example.net`, search: 'category=vps_cloud' },
        })
      ).status;
    }
    expect(status).toBe(429);
    const form = await fetch(`${server.url}/watches`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=another%40example.net&search=category%3Dvps_cloud',
    });
    expect(form.status).toBe(429);
    expect(await form.text()).toContain('Too many watches');
  });
});
