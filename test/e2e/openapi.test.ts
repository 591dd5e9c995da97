// The OpenAPI document (contract section 8): served, valid by `redocly lint`, covering every public and provider
// route with every answer; and the check that holds every end-to-end answer to it really catches a mismatch.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

describe('OpenAPI document', () => {
  let server: TestServer;
  let document: any;

  beforeAll(async () => {
    server = await startServer('postgres');
    const answer = await call(server, 'GET', '/api/v1/openapi.json');
    expect(answer.status).toBe(200);
    document = answer.body;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('passes redocly lint (recommended-strict, see redocly.yaml)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hostdir-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document, null, 2));
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [REDOCLY, 'lint', '--config', path.join(ROOT, 'redocly.yaml'), file],
        { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, timeout: 60_000 },
      ).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`redocly lint failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
      });
      expect(`${stdout}${stderr}`).toMatch(/valid/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('documents every public and provider operation with its answers, and no admin route or HTML page', () => {
    const operations = Object.entries(document.paths).flatMap(([route, methods]: [string, any]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/v1/categories',
        'GET /api/v1/directory/changes',
        'GET /api/v1/directory/export.csv',
        'GET /api/v1/directory/feed.atom',
        'GET /api/v1/directory/compare',
        'GET /api/v1/directory/hosts',
        'GET /api/v1/directory/hosts/{slug}',
        'GET /api/v1/directory/products',
        'GET /api/v1/directory/products/{id}',
        'GET /api/v1/directory/products/{id}/alternatives',
        'GET /api/v1/directory/products/{id}/price-history',
        'GET /api/v1/problems/{slug}',
        'GET /api/v1/products',
        'GET /api/v1/profile',
        'PATCH /api/v1/profile',
        'GET /api/v1/sync/runs',
        'GET /api/v1/sync/runs/{sync_id}',
        'GET /healthz',
        'GET /metrics',
        'GET /readyz',
        'POST /api/v1/sync/products',
        'POST /api/v1/watches',
        'GET /api/v1/watches/{token}',
        'DELETE /api/v1/watches/{token}',
      ].sort(),
    );
    const sync = document.paths['/api/v1/sync/products'].post;
    expect(Object.keys(sync.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '408',
      '409',
      '413',
      '415',
      '417',
      '422',
      '429',
      '431',
      '500',
      '503',
    ]);
    for (const [route, methods] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        expect(Object.keys(operation.responses), `${method} ${route}`).toEqual(
          expect.arrayContaining(['400', '500', '503']),
        );
        // 200, or 201 for what a POST creates and 204 for what a DELETE removes
        expect(
          Object.keys(operation.responses).filter((status) => /^20[014]$/.test(status)),
          `${method} ${route}`,
        ).toHaveLength(1);
      }
    }
    expect(sync.security).toEqual([{ apiKey: [] }]);
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(sync.requestBody.content['application/json'].schema.properties.products.maxItems).toBe(50_000);
    expect(sync.requestBody.content['application/json'].schema.properties.products.items).toEqual({
      $ref: '#/components/schemas/CatalogueProduct',
    });
    expect(sync.parameters.map((p: any) => `${p.in} ${p.name}`).sort()).toEqual([
      'header idempotency-key',
      'query dry_run',
    ]);
    expect(Object.keys(sync.responses['200'].headers).sort()).toEqual([
      'idempotent-replayed',
      'ratelimit',
      'ratelimit-policy',
      'x-request-id',
    ]);
    expect(Object.keys(sync.responses['429'].headers)).toContain('retry-after');
    expect(Object.keys(sync.responses['401'].headers)).toContain('www-authenticate');
    const refused = sync.responses['422'].content['application/problem+json'].schema;
    expect(refused.allOf[0]).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(refused.allOf[1].properties.code.enum).toEqual(['VALIDATION_FAILED', 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('names every operation (operationId), each once, and refers to its shared schemas by name', () => {
    const ids: string[] = [];
    for (const [route, methods] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        expect(operation.operationId, `${method.toUpperCase()} ${route} has no operationId`).toMatch(
          /^[a-z][A-Za-z0-9]+$/,
        );
        ids.push(operation.operationId);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'syncProducts',
        'listOwnProducts',
        'searchDirectoryProducts',
        'getDirectoryProduct',
        'listCategories',
      ]),
    );
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'Product',
        'ListedProduct',
        'Problem',
        'ProblemError',
        'SyncAnswer',
        'SyncSummary',
        'SyncRun',
        'Host',
        'Category',
        'CatalogueProduct',
      ]),
    );
    // No schema is left with a generated name, and every reference names a schema that is there.
    expect(Object.keys(document.components.schemas).filter((name) => /^def-\d+$/.test(name))).toEqual([]);
    const refs = new Set<string>();
    JSON.stringify(document, (key, value) => {
      if (key === '$ref') refs.add(value);
      return value;
    });
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[ref.slice('#/components/schemas/'.length)], ref).toBeDefined();
    }
    expect(document.paths['/api/v1/products'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ProductsPage',
    });
    expect(document.components.schemas.ProductsPage.properties.products.items).toEqual({
      $ref: '#/components/schemas/Product',
    });
    expect(document.components.schemas.ListedProductsPage.properties.products.items).toEqual({
      $ref: '#/components/schemas/ListedProduct',
    });
  });

  it('documents the 304 and the caching headers of every public read, and of no provider route', () => {
    for (const route of [
      '/api/v1/categories',
      '/api/v1/directory/products',
      '/api/v1/directory/products/{id}',
      '/api/v1/problems/{slug}',
    ]) {
      const operation = document.paths[route].get;
      expect(Object.keys(operation.responses), route).toContain('304');
      expect(Object.keys(operation.responses['200'].headers), route).toEqual(
        expect.arrayContaining(['etag', 'cache-control', 'access-control-allow-origin']),
      );
    }
    for (const route of ['/api/v1/products', '/api/v1/sync/runs']) {
      expect(Object.keys(document.paths[route].get.responses), route).not.toContain('304');
      expect(Object.keys(document.paths[route].get.responses['200'].headers), route).not.toContain('etag');
    }
  });

  it('has a page for every problem type it names, in HTML and in JSON', async () => {
    const types = new Set<string>();
    JSON.stringify(document, (key, value) => {
      if (key === 'enum' && typeof value[0] === 'string' && value[0].startsWith('/api/v1/problems/'))
        types.add(value[0]);
      return value;
    });
    expect(types.size).toBeGreaterThanOrEqual(12);
    for (const type of types) {
      const html = await call(server, 'GET', type);
      expect(html.status, type).toBe(200);
      expect(html.headers.get('content-type')).toMatch(/^text\/html/);
      const json = await call(server, 'GET', type, { headers: { accept: 'application/json' } });
      expect(json.body.type).toBe(type);
    }
    expect((await call(server, 'GET', '/api/v1/problems/no-such-problem')).status).toBe(404);
  });

  it('the answer check refuses an undocumented status, a body off the schema and an unknown media type', async () => {
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });
    const good = { status: 200, headers, body: { categories: [{ slug: 'vps', label: 'VPS' }] }, text: '{}' };
    await expect(checkAgainstDocument(server.url, 'GET', '/api/v1/categories', good)).resolves.toBeUndefined();
    await expect(
      checkAgainstDocument(server.url, 'GET', '/api/v1/categories', { ...good, status: 418 }),
    ).rejects.toThrow(/not documented/);
    await expect(
      checkAgainstDocument(server.url, 'GET', '/api/v1/categories', { ...good, body: { categories: [{ slug: 1 }] } }),
    ).rejects.toThrow(/does not match/);
    await expect(
      checkAgainstDocument(server.url, 'GET', '/api/v1/categories', { ...good, body: { categories: [], extra: true } }),
    ).rejects.toThrow(/does not match/);
    await expect(
      checkAgainstDocument(server.url, 'GET', '/api/v1/categories', {
        ...good,
        headers: new Headers({ 'content-type': 'text/plain' }),
      }),
    ).rejects.toThrow(/media type/);
    await expect(checkAgainstDocument(server.url, 'GET', '/api/v1/nowhere', { ...good })).rejects.toThrow(
      /not documented/,
    );
  });

  it('answers 404 and 405 problems for unknown paths and methods', async () => {
    expect((await call(server, 'GET', '/api/v1/nowhere')).status).toBe(404);
    const wrong = await call(server, 'DELETE', '/api/v1/sync/runs');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
  });
});
