// Requests to URLs others name: loopback, private and link-local targets refused however they are reached (written
// as an address, resolved from a name, or redirected to), unless private targets are allowed; time and size bounded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, refusedTarget, requestOutbound, type Resolve } from '../../src/net/outbound.js';

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['93.184.216.34', true],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['64:ff9b::a00:1', false],
    ['::ffff:93.184.216.34', true],
    ['2606:2800:220:1:248:1893:25c8:1946', true],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('refusedTarget', () => {
  it('names what is wrong with a URL, and accepts a public one', () => {
    expect(refusedTarget('https://hooks.example.org/in', false)).toBeNull();
    expect(refusedTarget('ftp://example.org', false)).toMatch(/http/);
    expect(refusedTarget('https://u:p@example.org', false)).toMatch(/password/);
    expect(refusedTarget('http://127.0.0.1:8080/', false)).toMatch(/loopback, private or link-local/);
    expect(refusedTarget('http://[::1]/', false)).toMatch(/loopback, private or link-local/);
    expect(refusedTarget('http://localhost:8080/', false)).toMatch(/this machine/);
    expect(refusedTarget('http://127.0.0.1:8080/', true)).toBeNull();
    expect(refusedTarget('no url', false)).toMatch(/not a URL/);
  });
});

describe('requestOutbound', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  // A name the test controls: resolves to this machine, as a rebinding name would.
  const resolve: Resolve = async (hostname) => {
    if (hostname === 'inside.example.test') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      if (request.url === '/big') return response.end(Buffer.alloc(64 * 1024, 'x'));
      if (request.url === '/slow') return setTimeout(() => response.end('late'), 2_000);
      if (request.url === '/redirect-inside') {
        response.writeHead(302, { location: `http://127.0.0.1:${port}/token` });
        return response.end();
      }
      response.end('token-123');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  const bounded = { timeoutMs: 1_000, maxBytes: 1024 };

  it('refuses a loopback target, written or resolved, and sends nothing', async () => {
    const before = hits.length;
    await expect(
      requestOutbound(`http://127.0.0.1:${port}/token`, { ...bounded, allowPrivate: false }),
    ).rejects.toThrow(/loopback, private or link-local/);
    await expect(
      requestOutbound(`http://inside.example.test:${port}/token`, { ...bounded, allowPrivate: false, resolve }),
    ).rejects.toThrow(/no public address/);
    expect(hits.length).toBe(before);
  });

  it('reaches it when private targets are allowed, and reads the answer', async () => {
    const answer = await requestOutbound(`http://inside.example.test:${port}/token`, {
      ...bounded,
      allowPrivate: true,
      resolve,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('token-123');
  });

  it('follows redirects only as far as allowed', async () => {
    const answer = await requestOutbound(`http://127.0.0.1:${port}/redirect-inside`, {
      ...bounded,
      allowPrivate: true,
      maxRedirects: 0,
    });
    expect(answer.status).toBe(302);
    const followed = await requestOutbound(`http://127.0.0.1:${port}/redirect-inside`, {
      ...bounded,
      allowPrivate: true,
      maxRedirects: 2,
    });
    expect(followed.body.toString()).toBe('token-123');
  });

  it('ends an answer larger than allowed, and one slower than allowed', async () => {
    await expect(requestOutbound(`http://127.0.0.1:${port}/big`, { ...bounded, allowPrivate: true })).rejects.toThrow(
      /larger than 1024 bytes/,
    );
    await expect(
      requestOutbound(`http://127.0.0.1:${port}/slow`, { timeoutMs: 300, maxBytes: 1024, allowPrivate: true }),
    ).rejects.toThrow(/within 300 ms/);
  });
});
