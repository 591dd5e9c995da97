// Idempotency-Key on the sync endpoint (contract section 7): a retry gets the first answer and applies nothing twice,
// another body under the same key is refused, and a key in flight answers 409, on both stores.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, type Answer } from '../support/api.js';
import {
  describeOnPostgres,
  STORES,
  startInProcessServer,
  startServer,
  type ServerUnderTest,
  type TestServer,
} from '../support/server.js';

/** An Idempotency-Key as the directory keeps it: its SHA-256, never the key as sent. */
const stored = (key: string) => createHash('sha256').update(key).digest('hex');

const SYNC = '/api/v1/sync/products';

function keyed(
  server: ServerUnderTest,
  key: string,
  idempotencyKey: string,
  body: unknown,
  query = '',
): Promise<Answer> {
  return call(server, 'POST', `${SYNC}${query}`, {
    token: key,
    json: body,
    headers: { 'idempotency-key': idempotencyKey },
  });
}

async function runsOf(server: ServerUnderTest, key: string): Promise<any[]> {
  const answer = await call(server, 'GET', '/api/v1/sync/runs?limit=100', { token: key });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.runs;
}

async function listingOf(server: ServerUnderTest, key: string): Promise<any[]> {
  const answer = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: key });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.products;
}

/**
 * Sends a sync whose body arrives in two parts: the headers and the first part now, the rest when `finish` is
 * called. Until then the request is in flight on the server.
 */
function slowSync(server: ServerUnderTest, key: string, idempotencyKey: string, body: string) {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  let answered!: (answer: { status: number; text: string; headers: Record<string, unknown> }) => void;
  let failed!: (error: Error) => void;
  const answer = new Promise<{ status: number; text: string; headers: Record<string, unknown> }>((resolve, reject) => {
    answered = resolve;
    failed = reject;
  });
  const request = httpRequest(`${server.url}${SYNC}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      'idempotency-key': idempotencyKey,
    },
  });
  request.on('error', failed);
  request.on('response', (response) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () =>
      answered({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: response.headers }),
    );
  });
  request.write(bytes.subarray(0, half));
  request.flushHeaders();
  return {
    answer,
    finish: () => request.end(bytes.subarray(half)),
    abort: () => request.destroy(),
  };
}

describe.each(STORES)('Idempotency-Key (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('replays the first answer to a retry whose answer was lost, applies nothing twice and is not rate limited', async () => {
    const host = await onboard(server, 'Replay Hosting');
    const body = { products: [product('vps-s'), product('vps-m')] };
    const first = await keyed(server, host.key, 'billing-run-0001', body);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const listingAfterFirst = await listingOf(server, host.key);

    // The billing system never saw that answer and sends the same request again, inside the full window.
    const retry = await keyed(server, host.key, 'billing-run-0001', body);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));

    // Still one run, and the rows exactly as the first call left them.
    expect((await runsOf(server, host.key)).map((run) => run.sync_id)).toEqual([first.body.sync_id]);
    expect(await listingOf(server, host.key)).toEqual(listingAfterFirst);

    // Without the key, the window is full: the replay did not free or use a slot.
    const unkeyed = await call(server, 'POST', SYNC, { token: host.key, json: body });
    expect(unkeyed.status).toBe(429);
  });

  it('refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED) and changes nothing', async () => {
    const host = await onboard(server, 'Reuse Hosting');
    const first = await keyed(server, host.key, 'key-reuse', { products: [product('a')] }, '?dry_run=true');
    expect(first.status, first.text).toBe(200);
    const before = await listingOf(server, host.key);

    const other = await keyed(
      server,
      host.key,
      'key-reuse',
      { products: [product('a'), product('b')] },
      '?dry_run=true',
    );
    expect(other.status, other.text).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(other.headers.get('idempotent-replayed')).toBeNull();

    // The same body as a real sync is another request too: the key covers the dry-run flag.
    const applied = await keyed(server, host.key, 'key-reuse', { products: [product('a')] });
    expect(applied.status, applied.text).toBe(422);
    expect(applied.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await listingOf(server, host.key)).toEqual(before);
    expect(await runsOf(server, host.key)).toHaveLength(1);
  });

  it('keeps a refused body (422) as the answer for the key and replays it', async () => {
    const host = await onboard(server, 'Refused Hosting');
    const broken = { products: [product('x', { price: -1 })] };
    const first = await keyed(server, host.key, 'refused-1', broken);
    expect(first.status).toBe(422);
    expect(first.body.code).toBe('VALIDATION_FAILED');
    const again = await keyed(server, host.key, 'refused-1', broken);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);

    // Broken JSON is a kept answer too.
    const notJson = await call(server, 'POST', SYNC, {
      token: host.key,
      body: '{"products": [',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'refused-2' },
    });
    expect(notJson.status).toBe(422);
    const notJsonAgain = await call(server, 'POST', SYNC, {
      token: host.key,
      body: '{"products": [',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'refused-2' },
    });
    expect(notJsonAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(notJsonAgain.text).toBe(notJson.text);
    expect(await runsOf(server, host.key)).toHaveLength(0);
  });

  it('frees the key after an answer that is not kept (429), so that it can be retried', async () => {
    const host = await onboard(server, 'Busy Hosting');
    const first = await call(server, 'POST', SYNC, { token: host.key, json: { products: [product('a')] } });
    expect(first.status).toBe(200);
    const body = { products: [product('a'), product('b')] };
    for (let i = 0; i < 2; i++) {
      const limited = await keyed(server, host.key, 'after-limit', body);
      expect(limited.status, limited.text).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    }
  });

  it('frees the key of a request whose client went away mid-body, so that its retry is applied', async () => {
    const host = await onboard(server, 'Cut Off Hosting');
    const body = JSON.stringify({ products: [product('a'), product('b')] });
    const cut = slowSync(server, host.key, 'cut-off', body);
    cut.answer.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 500));
    cut.abort();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const retry = await call(server, 'POST', SYNC, {
      token: host.key,
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'cut-off' },
    });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.summary.created).toBe(2);
  });

  it('refuses a malformed key with 422 naming the header, and applies nothing', async () => {
    const host = await onboard(server, 'Malformed Key Hosting');
    for (const bad of ['with space', '', 'x'.repeat(256)]) {
      const answer = await call(server, 'POST', SYNC, {
        token: host.key,
        json: { products: [product('a')] },
        headers: { 'idempotency-key': bad },
      });
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body.code).toBe('VALIDATION_FAILED');
      expect(answer.body.errors).toEqual([expect.objectContaining({ parameter: 'idempotency-key' })]);
    }
    expect(await runsOf(server, host.key)).toHaveLength(0);
    const ok = await keyed(server, host.key, 'x'.repeat(255), { products: [product('a')] });
    expect(ok.status, ok.text).toBe(200);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE to a second call while the first is in flight, then the first answer', async () => {
    const host = await onboard(server, 'In Flight Hosting');
    const products = Array.from({ length: 2_000 }, (_, i) => product(`p-${i}`));
    const body = JSON.stringify({ products });
    const first = slowSync(server, host.key, 'in-flight', body);
    // The claim is taken before the body is read; wait until it is visible.
    if (store === 'postgres') {
      const deadline = Date.now() + 10_000;
      while (
        (await server.sql(`SELECT 1 FROM idempotency_keys WHERE key = '${stored('in-flight')}' AND status = 'running'`))
          .length === 0
      ) {
        if (Date.now() > deadline) throw new Error('the first request never claimed its key');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } else {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }

    const second = await call(server, 'POST', SYNC, {
      token: host.key,
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'in-flight' },
    });
    expect(second.status, second.text).toBe(409);
    expect(second.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');

    first.finish();
    const answer = await first.answer;
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text).summary.created).toBe(2_000);

    const third = await call(server, 'POST', SYNC, {
      token: host.key,
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'in-flight' },
    });
    expect(third.status).toBe(200);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.text).toBe(answer.text);
    expect(await runsOf(server, host.key)).toHaveLength(1);
  });

  it('keeps keys per host: two hosts may use the same key', async () => {
    const a = await onboard(server, 'Key Host A');
    const b = await onboard(server, 'Key Host B');
    const answerA = await keyed(server, a.key, 'shared-key', { products: [product('a')] });
    const answerB = await keyed(server, b.key, 'shared-key', { products: [product('b'), product('c')] });
    expect(answerA.status).toBe(200);
    expect(answerB.status).toBe(200);
    expect(answerB.headers.get('idempotent-replayed')).toBeNull();
    expect(answerB.body.summary.created).toBe(2);
  });
});

describeOnPostgres('Idempotency-Key expiry', () => {
  let server: ServerUnderTest;

  beforeAll(async () => {
    // Keys kept a second instead of IDEMPOTENCY_KEY_TTL_SECONDS (a day), so that the test sees them expire.
    server = await startInProcessServer('postgres', {
      env: { SYNC_MAX_PER_WINDOW: '10' },
      config: { idempotencyKeyTtlSeconds: 1 },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('treats an expired key as new, and purges expired keys without a separate job', async () => {
    const host = await onboard(server, 'Expiry Hosting');
    const body = { products: [product('a')] };
    const first = await keyed(server, host.key, 'short-lived', body);
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const later = await keyed(server, host.key, 'short-lived', body);
    expect(later.status, later.text).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.sync_id).not.toBe(first.body.sync_id);
    expect(later.body.summary.unchanged).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Claiming any key purges the expired ones.
    expect((await keyed(server, host.key, 'another', body)).status).toBe(200);
    const keys = await server.sql<{ key: string }>('SELECT key FROM idempotency_keys ORDER BY key');
    expect(keys.map((row) => row.key)).toEqual([stored('another')]);
  });
});

describeOnPostgres('Idempotency-Key across server processes sharing one PostgreSQL', () => {
  let first: ServerUnderTest;
  let second: TestServer;

  beforeAll(async () => {
    // A lease of 2 s on the first server (in this process) instead of the 5 minutes derived from the timeouts, so
    // that its claim lapses within the test.
    first = await startInProcessServer('postgres', { config: { idempotencyLeaseSeconds: 2 } });
    second = await startServer('postgres', { databaseUrl: first.databaseUrl! });
  });
  afterAll(async () => {
    await second?.kill();
    await first?.stop();
  });

  it('answers 409 on one process while another runs the key, and takes the claim over once its lease lapses', async () => {
    const host = await onboard(first, 'Two Process Hosting');
    const body = JSON.stringify({ products: [product('a'), product('b')] });
    const headers = { 'content-type': 'application/json', 'idempotency-key': 'shared-claim' };

    const inFlight = slowSync(first, host.key, 'shared-claim', body);
    inFlight.answer.catch(() => {});
    const deadline = Date.now() + 10_000;
    while ((await first.sql(`SELECT 1 FROM idempotency_keys WHERE key = '${stored('shared-claim')}'`)).length === 0) {
      if (Date.now() > deadline) throw new Error('the first request never claimed its key');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elsewhere = await call(second, 'POST', SYNC, { token: host.key, body, headers });
    expect(elsewhere.status, elsewhere.text).toBe(409);
    expect(elsewhere.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');

    // The request holding the claim stalls with its body half read, its process alive: nothing releases the claim,
    // and a process's heartbeat frees only the claims of a dead one. It blocks the key until its lease lapses.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const recovered = await call(second, 'POST', SYNC, { token: host.key, body, headers });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body.summary.created).toBe(2);
    const replay = await call(second, 'POST', SYNC, { token: host.key, body, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(recovered.text);
    inFlight.abort();
  });
});
