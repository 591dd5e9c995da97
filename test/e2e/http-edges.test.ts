// The edges of HTTP where Node or Fastify would answer on their own: Expect: 100-continue decided after every check
// the headers allow, other expectations, malformed requests, 304s, the asterisk-form target, and one reading of
// ?dry_run whatever the window holds. Spoken over raw sockets where fetch would hide the difference.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { parseResponses, rawExchange, type RawResponse } from '../support/raw-http.js';
import { STORES, startServer, type TestServer } from '../support/server.js';

const SYNC = '/api/v1/sync/products';
const MAX_BODY_BYTES = 64 * 1024;

/** Sends request headers with Expect: 100-continue and waits for what the server says before any body byte. */
function expectContinue(
  port: number,
  head: string,
): Promise<{ first: RawResponse | null; socket: Socket; received: () => Buffer }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => resolve({ first: null, socket, received: () => Buffer.concat(chunks) }), 5_000);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const responses = parseResponses(Buffer.concat(chunks));
      if (responses.length > 0) {
        clearTimeout(timer);
        resolve({ first: responses[0]!, socket, received: () => Buffer.concat(chunks) });
      }
    });
    socket.on('connect', () => socket.write(head));
    socket.on('close', () => clearTimeout(timer));
    setTimeout(() => reject(new Error('no answer')), 10_000).unref();
  });
}

function syncHead(port: number, options: { key?: string; type?: string; length: number; query?: string }): string {
  return (
    `POST ${SYNC}${options.query ?? ''} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    (options.key ? `Authorization: Bearer ${options.key}\r\n` : '') +
    `Content-Type: ${options.type ?? 'application/json'}\r\nContent-Length: ${options.length}\r\n` +
    'Expect: 100-continue\r\n\r\n'
  );
}

function expectProblemOf(
  response: RawResponse,
  status: number,
  code: string,
  instance: string,
): Record<string, unknown> {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  const body = JSON.parse(response.body);
  expect(body).toMatchObject({ status, code, instance, type: expect.stringMatching(/^\/api\/v1\/problems\//) });
  expect(response.headers['x-request-id']).toBe(body.request_id);
  expect(body.request_id).toMatch(/^req_/);
  return body;
}

describe.each(STORES)('HTTP edges (%s store)', (store) => {
  let server: TestServer;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startServer(store, { env: { MAX_BODY_BYTES: String(MAX_BODY_BYTES) } });
    host = await onboard(server, `Edges ${store}`);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers every refusal the headers allow before 100 Continue, and a valid upload after it', async () => {
    const body = JSON.stringify({ products: [product('continue-1')] });
    const refusals: [string, string, number, string][] = [
      ['no key', syncHead(server.port, { length: body.length }), 401, 'UNAUTHORIZED'],
      ['unknown key', syncHead(server.port, { key: `rk_${'0'.repeat(64)}`, length: body.length }), 401, 'UNAUTHORIZED'],
      [
        'wrong media type',
        syncHead(server.port, { key: host.key, type: 'text/csv', length: body.length }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      ['too large', syncHead(server.port, { key: host.key, length: MAX_BODY_BYTES + 1 }), 413, 'PAYLOAD_TOO_LARGE'],
      [
        'malformed query',
        syncHead(server.port, { key: host.key, length: body.length, query: '?dry_run=maybe' }),
        422,
        'VALIDATION_FAILED',
      ],
    ];
    for (const [what, head, status, code] of refusals) {
      const { first, socket } = await expectContinue(server.port, head);
      socket.destroy();
      expect(first, what).not.toBeNull();
      expect(first!.status, what).not.toBe(100);
      expectProblemOf(first!, status, code, SYNC);
    }

    const { first, socket, received } = await expectContinue(
      server.port,
      syncHead(server.port, { key: host.key, length: body.length }),
    );
    expect(first?.status).toBe(100);
    socket.write(body);
    await new Promise<void>((resolve) => {
      const check = () => (parseResponses(received()).length >= 2 ? resolve() : setTimeout(check, 20));
      check();
    });
    socket.destroy();
    const final = parseResponses(received())[1]!;
    expect(final.status, final.body).toBe(200);
    expect(JSON.parse(final.body).summary.created).toBe(1);

    // The window is now full: the next upload is refused with 429 before 100 Continue, and never applied.
    const limited = await expectContinue(server.port, syncHead(server.port, { key: host.key, length: body.length }));
    limited.socket.destroy();
    expectProblemOf(limited.first!, 429, 'RATE_LIMITED', SYNC);
    expect(limited.first!.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('reads ?dry_run one way: 1 and true are dry runs, and a malformed value is the same 422 whatever the window holds', async () => {
    const fresh = await onboard(server, `Dry ${store}`);
    for (const query of ['?dry_run=1', '?dry_run=true']) {
      const dry = await sync(server, fresh.key, [product('d-1')], query);
      expect(dry.status, query).toBe(200);
      expect(dry.body.dry_run).toBe(true);
    }
    const malformed = async () => {
      const answer = await sync(server, fresh.key, [product('d-1')], '?dry_run=maybe');
      expect(answer.status).toBe(422);
      expect(answer.body.errors).toEqual([expect.objectContaining({ parameter: 'dry_run', code: 'enum' })]);
      return answer.body.errors;
    };
    const before = await malformed();
    expect((await sync(server, fresh.key, [product('d-1')], '?dry_run=0')).body.dry_run).toBe(false);
    // The sync window is now full; the malformed query still answers 422, not 429.
    expect(await malformed()).toEqual(before);
    expect((await sync(server, fresh.key, [product('d-1')], '?dry_run=1&dry_run=1')).status).toBe(422);
    // A misspelt parameter would otherwise apply what was meant as a dry run.
    const typo = await sync(server, fresh.key, [product('d-1')], '?dryrun=true');
    expect(typo.status).toBe(422);
    expect(typo.body.errors).toEqual([expect.objectContaining({ parameter: 'dryrun', code: 'unknown_field' })]);
  });

  it('answers an expectation other than 100-continue with a 417 problem', async () => {
    const { responses } = await rawExchange(
      server.port,
      [`GET /api/v1/categories HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n\r\n`],
      { deadlineMs: 5_000 },
    );
    const body = expectProblemOf(responses[0]!, 417, 'EXPECTATION_FAILED', '/api/v1/categories');
    expect((await call(server, 'GET', String(body.type))).status).toBe(200);
  });

  it('answers malformed requests and oversized headers as problems with an instance', async () => {
    const garbage = await rawExchange(server.port, ['GET /api/v1/categories HTTP/1.1\r\nHost x\r\n\r\n'], {
      deadlineMs: 5_000,
    });
    expectProblemOf(garbage.responses[0]!, 400, 'BAD_REQUEST', '/api/v1/categories');
    const nonsense = await rawExchange(server.port, ['\u0001\u0002 not http\r\n\r\n'], { deadlineMs: 5_000 });
    expectProblemOf(nonsense.responses[0]!, 400, 'BAD_REQUEST', '');
    const huge = await rawExchange(
      server.port,
      [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
      { deadlineMs: 5_000 },
    );
    expectProblemOf(huge.responses[0]!, 431, 'HEADERS_TOO_LARGE', '/healthz');
  });

  it('answers a 304 with neither Content-Type nor Content-Length', async () => {
    const first = await call(server, 'GET', '/api/v1/directory/hosts');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const { responses } = await rawExchange(
      server.port,
      [`GET /api/v1/directory/hosts HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`],
      { deadlineMs: 5_000 },
    );
    const notModified = responses[0]!;
    expect(notModified.status).toBe(304);
    expect(notModified.headers['content-type']).toBeUndefined();
    expect(notModified.headers['content-length']).toBeUndefined();
    expect(notModified.headers.etag).toBe(etag);
    expect(notModified.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers the asterisk-form target: OPTIONS * with what the server allows, GET * with a 400 problem', async () => {
    const options = await rawExchange(server.port, ['OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], {
      deadlineMs: 5_000,
    });
    expect(options.responses[0]!.status).toBe(204);
    expect(options.responses[0]!.headers.allow).toContain('GET');
    expect(options.responses[0]!.headers['x-request-id']).toMatch(/^req_/);
    const get = await rawExchange(server.port, ['GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], {
      deadlineMs: 5_000,
    });
    expectProblemOf(get.responses[0]!, 400, 'BAD_REQUEST', '*');
  });
});
