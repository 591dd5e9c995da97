// Many simultaneous maximum-size uploads: the process's body budget (MAX_BODY_BYTES_IN_FLIGHT) turns the excess
// away with 503 and Retry-After, so that the memory bodies take is bounded by the budget rather than by the number
// of clients (SECURITY.md gives the figures), and takes them again once it is free.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

const MiB = 1024 * 1024;
const MAX_BODY_BYTES = 8 * MiB;
const IN_FLIGHT = 2 * MAX_BODY_BYTES;
const CLIENTS = 20;

/** A valid catalogue just under `bytes` of JSON. */
function catalogueOf(bytes: number): Buffer {
  const one = Buffer.byteLength(JSON.stringify(product('p-000000'))) + 1;
  const count = Math.floor((bytes - 20) / one);
  return Buffer.from(
    JSON.stringify({ products: Array.from({ length: count }, (_, k) => product(`p-${String(k).padStart(6, '0')}`)) }),
  );
}

function upload(
  server: TestServer,
  key: string,
  body: Buffer,
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}/api/v1/sync/products`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the body budget under concurrent maximum-size uploads', () => {
  let server: TestServer;
  let hosts: Onboarded[];

  beforeAll(async () => {
    server = await startServer('postgres', {
      env: {
        MAX_BODY_BYTES: String(MAX_BODY_BYTES),
        MAX_BODY_BYTES_IN_FLIGHT: String(IN_FLIGHT),
        REQUEST_TIMEOUT_MS: '60000',
      },
    });
    hosts = [];
    for (let k = 0; k < CLIENTS; k++) hosts.push(await onboard(server, `Upload ${k}`));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it(`turns away with 503 what ${CLIENTS} clients send past MAX_BODY_BYTES_IN_FLIGHT, and takes it once it is free`, async () => {
    const body = catalogueOf(MAX_BODY_BYTES);
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(body.length).toBeGreaterThan(MAX_BODY_BYTES - 2048);

    const answers = await Promise.all(hosts.map((host) => upload(server, host.key, body)));

    const statuses = answers.map((a) => a.status);
    // Every client got an answer it can act on: applied, or told to come back.
    expect(
      statuses.every((s) => s === 200 || s === 503),
      statuses.join(','),
    ).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const answer of refused) {
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    }

    // Once the uploads are answered their budget is free again: the refused clients succeed when they retry.
    const retry = await upload(server, hosts[statuses.indexOf(503)]!.key, body);
    expect(retry.status).toBe(200);
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
  });
});
