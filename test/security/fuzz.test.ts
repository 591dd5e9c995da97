// Hostile input against the running server: structured mutations of a valid catalogue, random bytes, truncated
// bodies and lying Content-Length headers. Every answer must be a documented status with a problem+json body
// (200 for a mutation that happens to be valid), a refused request must leave the database exactly as it was,
// and the process must be alive and answering afterwards. Seeded and bounded: the same runs every time.
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VALIDATION_CODES } from '../../src/catalog/validation-run.js';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { rawExchange, syncHead } from '../support/raw-http.js';
import { startServer, STORES, type StoreKind, type TestServer } from '../support/server.js';
import { stateOf } from '../support/state.js';

const SEED = 20261121;
/** runs per property; the embedded store is slower and gets fewer */
const RUNS: Record<StoreKind, number> = { postgres: 250, embedded: 50 };

const DOCUMENTED = new Set([200, 400, 401, 403, 404, 405, 408, 409, 413, 415, 422, 429, 431, 503]);
const BODY_CODES = new Set<string>([...VALIDATION_CODES, 'invalid_json', 'invalid_gzip']);

/** A JSON fragment spliced verbatim into the serialized body: what JSON.stringify cannot produce. */
class Raw {
  constructor(readonly text: string) {}
}

function serialize(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `@@raw${raws.length - 1}@@`;
    }
    return v;
  });
  return text.replace(/"@@raw(\d+)@@"/g, (_, k: string) => raws[Number(k)]!);
}

const FIELDS = [
  'external_id',
  'name',
  'category',
  'price',
  'currency',
  'description',
  'specs',
  'pricing_tiers',
  'setup_fee',
  'contract_duration',
  'features',
  'datacenter_locations',
] as const;

const BOUNDARY_LENGTHS = [0, 1, 2, 99, 100, 101, 199, 200, 201, 254, 255, 256, 999, 1000, 1001, 19_999, 20_000, 20_001];
const BOUNDARY_COUNTS = [0, 1, 19, 20, 21, 99, 100, 101];
const EDGE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '\udbff\udbff',
  '\ude00\ud83d',
  '\u202eevil\u202c',
  '\u200f\u200e',
  '😀',
  '𝕏'.repeat(201),
  '\ufeff',
  '\uffff',
  '\t\r\n',
  '\u0085',
  ' ',
  '',
  '__proto__',
  'constructor',
  'null',
  "'; DROP TABLE products; --",
  '%00',
  '\\u0000',
  '</script>',
];
const NUMBER_TOKENS = [
  '1e309',
  '-1e309',
  '-0',
  '0e0',
  '1e-400',
  '-1e-400',
  '123456789012345678901234567890',
  '1E2',
  '0.1e1',
  '1e9',
  '1000000000.0000001',
  '4.9e-324',
  '1.7976931348623157e308',
  '-0.0',
  '99999999999999999999999',
];

/** A value of any JSON shape, biased towards what breaks validators and databases. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 0.5, 1e9 + 1, [], {}),
  fc.constantFrom(...EDGE_STRINGS),
  fc.constantFrom(...NUMBER_TOKENS).map((t) => new Raw(t)),
  fc.constantFrom(...BOUNDARY_LENGTHS).map((n) => 'x'.repeat(n)),
  fc.constantFrom(...BOUNDARY_LENGTHS).map((n) => '😀'.repeat(n)),
  fc.constantFrom(...BOUNDARY_COUNTS).map((n) => Array.from({ length: n }, (_, k) => `item ${k}`)),
  fc.constantFrom(...BOUNDARY_COUNTS).map((n) => Object.fromEntries(Array.from({ length: n }, (_, k) => [`k${k}`, k]))),
  fc.constantFrom(...BOUNDARY_COUNTS).map((n) => Array.from({ length: n }, () => ({ period: 'monthly', price: 1 }))),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.double(),
  fc.integer(),
  fc.jsonValue({ maxDepth: 4 }),
  fc.integer({ min: 1, max: 5000 }).map((d) => new Raw('['.repeat(d) + ']'.repeat(d))),
  fc.integer({ min: 1, max: 5000 }).map((d) => new Raw('{"a":'.repeat(d) + '1' + '}'.repeat(d))),
  fc.tuple(fc.constantFrom(...EDGE_STRINGS), fc.jsonValue({ maxDepth: 1 })).map(([k, v]) => ({ [k]: v })),
);

type Mutation =
  | { kind: 'set'; index: number; field: string; value: unknown }
  | { kind: 'delete'; index: number; field: string }
  | { kind: 'duplicate-key'; index: number; field: string; value: unknown; valueFirst: boolean }
  | { kind: 'top'; body: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      index: fc.nat(2),
      field: fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom(...EDGE_STRINGS)),
      value: hostileValue,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), index: fc.nat(2), field: fc.constantFrom(...FIELDS) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('duplicate-key' as const),
      index: fc.nat(2),
      field: fc.constantFrom(...FIELDS),
      value: hostileValue,
      valueFirst: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('top' as const),
      body: fc.oneof(
        hostileValue,
        fc.record({ products: hostileValue }),
        fc.record({ products: fc.constant([]), extra: hostileValue }),
      ),
    }),
  },
);

/** The request text of a mutated catalogue, built from three valid products. */
function bodyOf(m: Mutation, round: number): string {
  const products: Record<string, unknown>[] = [0, 1, 2].map((k) => product(`fuzz-${k}`, { price: (round % 50) + k }));
  if (m.kind === 'top') return serialize(m.body);
  const target = products[m.index]!;
  if (m.kind === 'set') target[m.field] = m.value;
  if (m.kind === 'delete') delete target[m.field];
  if (m.kind !== 'duplicate-key') return serialize({ products });
  // JSON.parse keeps the last of duplicate keys; the server must judge what it parsed, whichever comes last.
  const original = target[m.field];
  delete target[m.field];
  const others = serialize(target).slice(1, -1);
  const pairs = m.valueFirst ? [m.value, original] : [original, m.value];
  const text = `{${others}${others ? ',' : ''}${pairs.map((v) => `${JSON.stringify(m.field)}:${v === undefined ? 'null' : serialize(v)}`).join(',')}}`;
  const list = products.map((p, k) => (k === m.index ? text : serialize(p)));
  return `{"products":[${list.join(',')}]}`;
}

/** Whether an RFC 6901 pointer names the body, a member of it, or a missing member of an existing object. */
function pointsInto(document: unknown, pointer: string): boolean {
  if (pointer === '') return true;
  if (!pointer.startsWith('/')) return false;
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  let here: unknown = document;
  for (let k = 0; k < tokens.length; k++) {
    if (here === null || typeof here !== 'object') return false;
    const token = tokens[k]!;
    if (!Object.prototype.hasOwnProperty.call(here, token)) return k === tokens.length - 1 && !Array.isArray(here);
    here = (here as Record<string, unknown>)[token];
  }
  return true;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** `sent`: the body as sent, to check error pointers against; `syncCodes`: errors must carry the sync payload's codes. */
function expectDocumentedAnswer(answer: Answer, sent: string | null, syncCodes = true): void {
  expect(DOCUMENTED.has(answer.status), `undocumented status ${answer.status}: ${answer.text.slice(0, 300)}`).toBe(
    true,
  );
  if (answer.status === 200) {
    expect(JSON.parse(answer.text).sync_id).toMatch(/^syn_/);
    return;
  }
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(answer.text);
  expect(problem.status).toBe(answer.status);
  expect(problem.type).toMatch(/^\/api\/v1\/problems\//);
  expect(answer.text).not.toMatch(/at .*\.js:\d+|node_modules|SELECT |INSERT |\/work\//);
  if (problem.code === 'VALIDATION_FAILED') {
    expect(problem.errors.length).toBeGreaterThan(0);
    expect(problem.errors.length).toBeLessThanOrEqual(100);
    let document: unknown = undefined;
    try {
      document = sent === null ? undefined : JSON.parse(sent);
    } catch {
      // not JSON: every error must then be the body-level invalid_json
    }
    for (const error of problem.errors) {
      if (syncCodes) expect(BODY_CODES.has(error.code), `unknown code ${error.code}`).toBe(true);
      expect(typeof error.detail).toBe('string');
      if (document !== undefined) expect(pointsInto(document, error.pointer), `pointer ${error.pointer}`).toBe(true);
    }
  }
}

async function post(
  server: TestServer,
  key: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  query = '',
): Promise<Answer> {
  const response = await fetch(`${server.url}/api/v1/sync/products${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe.each(STORES)('hostile input on the %s store', (store) => {
  let server: TestServer;
  let target: Onboarded;
  let bystander: Onboarded;
  const state = () => stateOf(server, [target.key, bystander.key], [target.slug, bystander.slug]);

  beforeAll(async () => {
    server = await startServer(store, {
      env: {
        // Raised on purpose, and with it the dry runs and refused requests a host may send per window.
        SYNC_MAX_PER_WINDOW: '1000000',
        MAX_BODY_BYTES: String(4 * 1024 * 1024),
      },
    });
    target = await onboard(server, 'Fuzz Target');
    bystander = await onboard(server, 'Bystander');
    expect((await sync(server, target.key, [product('fuzz-0'), product('fuzz-1'), product('fuzz-2')])).status).toBe(
      200,
    );
    expect((await sync(server, bystander.key, [product('fuzz-0'), product('other')])).status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function expectAlive(): Promise<void> {
    expect(server.process().exitCode).toBeNull();
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
  }

  it('answers every structured mutation of a catalogue with 200 or a problem, and a refusal changes nothing', async () => {
    let before = await state();
    let round = 0;
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(mutation, fc.boolean(), async (m, dryRun) => {
        const body = bodyOf(m, round++);
        const answer = await post(server, target.key, body, {}, dryRun ? '?dry_run=true' : '');
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        expectDocumentedAnswer(answer, body);
        expect([200, 422]).toContain(answer.status);
        const after = await state();
        // A dry run writes its sync-run record and nothing else; an applied sync may change anything of its host.
        if (answer.status === 200) before = after;
        else expect(after).toBe(before);
      }),
      { seed: SEED, numRuns: RUNS[store], endOnFailure: true },
    );
    // The generator must reach both outcomes, or it tests less than it claims.
    expect(seen.get(200) ?? 0).toBeGreaterThan(0);
    expect(seen.get(422) ?? 0).toBeGreaterThan(RUNS[store] / 3);
    await expectAlive();
  });

  it('gives every field every JSON type, and the catalogue itself too', async () => {
    const types: unknown[] = [
      null,
      true,
      false,
      0,
      -1,
      2.5,
      '',
      'text',
      [],
      ['a'],
      {},
      { a: 1 },
      new Raw('1e309'),
      new Raw('-0'),
    ];
    let before = await state();
    let round = 0;
    const bodies: string[] = [];
    for (const field of FIELDS)
      for (const value of types) bodies.push(bodyOf({ kind: 'set', index: 1, field, value }, round++));
    for (const value of types) {
      bodies.push(serialize(value), serialize({ products: value }), serialize({ products: [value] }));
    }
    for (const body of bodies) {
      const answer = await post(server, target.key, body);
      expectDocumentedAnswer(answer, body);
      expect([200, 422], body.slice(0, 200)).toContain(answer.status);
      const after = await state();
      if (answer.status === 200) before = after;
      else expect(after, body.slice(0, 200)).toBe(before);
    }
    await expectAlive();
  });

  it('refuses each known poison value in every stored string field, naming the field', async () => {
    const before = await state();
    const poisons: [string, string][] = [
      ['\u0000', 'control_characters'],
      ['\ud800', 'invalid_unicode'],
      ['x\udfff', 'invalid_unicode'],
    ];
    const places: [Record<string, unknown>, string][] = [
      [{ name: 'P' }, '/products/0/name'],
      [{ description: 'P' }, '/products/0/description'],
      [{ specs: { P: 'v' } }, '/products/0/specs/P'],
      [{ specs: { os: 'P' } }, '/products/0/specs/os'],
      [{ features: ['ok', 'P'] }, '/products/0/features/1'],
      [{ datacenter_locations: ['P'] }, '/products/0/datacenter_locations/0'],
      [{ external_id: 'P' }, '/products/0/external_id'],
    ];
    for (const [poison, code] of poisons) {
      for (const [patch, pointer] of places) {
        const text = serialize({ products: [product('fuzz-0', patch)] })
          .replaceAll('"P"', JSON.stringify(`P${poison}`))
          .replaceAll('\\"P', '"P');
        const placed = pointer.replace('/P', `/P${poison}`);
        const answer = await post(server, target.key, text);
        expectDocumentedAnswer(answer, text);
        expect(answer.status, `${JSON.stringify(poison)} in ${pointer}`).toBe(422);
        expect(JSON.parse(answer.text).errors).toEqual([{ pointer: placed, code, detail: expect.any(String) }]);
      }
    }
    expect(await state()).toBe(before);
    await expectAlive();
  });

  it('survives numbers JSON.parse bends and nesting 100 000 deep', async () => {
    const before = await state();
    const cases: [string, number][] = [
      ['{"products":[{"external_id":"n","name":"N","category":"vps_cloud","price":1e309}]}', 422],
      ['{"products":[{"external_id":"n","name":"N","category":"vps_cloud","price":-1e309}]}', 422],
      [
        '{"products":[{"external_id":"n","name":"N","category":"vps_cloud","price":123456789012345678901234567890}]}',
        422,
      ],
      ['{"products":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}', 422],
      [
        '{"products":[{"external_id":"n","name":"N","category":"vps_cloud","price":1,"specs":{"k":' +
          '{"a":'.repeat(100_000) +
          '1' +
          '}'.repeat(100_000) +
          '}}]}',
        422,
      ],
      ['['.repeat(100_000), 422],
      ['{"products":[{"external_id":"n","name":"N","category":"vps_cloud","price":1,"price":"x"}]}', 422],
    ];
    for (const [text, status] of cases) {
      const answer = await post(server, target.key, text);
      expectDocumentedAnswer(answer, text);
      expect(answer.status, text.slice(0, 120)).toBe(status);
    }
    expect(await state()).toBe(before);
    // -0 and 1e-400 are valid prices (0): stored as 0, never as "-0".
    const zero = await post(
      server,
      target.key,
      '{"products":[{"external_id":"zero","name":"Z","category":"vps_cloud","price":-0,"setup_fee":1e-400,"pricing_tiers":[{"period":"monthly","price":-0.0}]}]}',
    );
    expect(zero.status).toBe(200);
    const listing = await call(server, 'GET', '/api/v1/products', { token: target.key });
    expect(listing.body.products).toMatchObject([
      { external_id: 'zero', price: 0, setup_fee: 0, pricing_tiers: [{ period: 'monthly', price: 0 }] },
    ]);
    expect(Object.is(listing.body.products[0].price, -0)).toBe(false);
    await expectAlive();
  });

  it('answers random bytes, truncated JSON and broken gzip with a problem and changes nothing', async () => {
    const before = await state();
    const valid = serialize({ products: [product('fuzz-0'), product('fuzz-1')] });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 4096 }).map((bytes) => ({ body: Buffer.from(bytes), headers: {} })),
          fc.nat(valid.length - 1).map((cut) => ({ body: Buffer.from(valid.slice(0, cut)), headers: {} })),
          fc
            .nat(200)
            .map((cut) => ({ body: gzipSync(valid).subarray(0, cut), headers: { 'content-encoding': 'gzip' } })),
          fc.uint8Array({ maxLength: 512 }).map((bytes) => ({
            body: Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.from(bytes)]),
            headers: { 'content-encoding': 'gzip' },
          })),
          fc
            .constantFrom(
              '\xff\xfe{}',
              '\uFEFF{"products":[]}',
              '{"products":[]}\u0000',
              'null',
              '"products"',
              '1e309',
              '[]',
            )
            .map((t) => ({ body: Buffer.from(t, 'utf8'), headers: {} })),
          fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({
            body: Buffer.concat([Buffer.from(valid.slice(0, 40)), Buffer.from(bytes)]),
            headers: {},
          })),
        ),
        async ({ body, headers }) => {
          const answer = await post(server, target.key, body, headers);
          expectDocumentedAnswer(answer, null);
          expect([413, 415, 422]).toContain(answer.status);
        },
      ),
      { seed: SEED, numRuns: RUNS[store], endOnFailure: true },
    );
    expect(await state()).toBe(before);
    await expectAlive();
  });

  it('answers poison in admin fields and in path parameters with a problem, never 500', async () => {
    const before = await state();
    const asAdmin = (method: string, path: string, json?: unknown) =>
      call(server, method, path, { token: server.adminToken, ...(json === undefined ? {} : { json }) });
    const answers: [string, Answer & { body?: unknown }][] = [
      ['host name with U+0000', await asAdmin('POST', '/admin/v1/hosts', { name: 'Evil\u0000Host' })],
      ['host name with a lone surrogate', await asAdmin('POST', '/admin/v1/hosts', { name: 'Evil\ud800' })],
      ['category label with U+0000', await asAdmin('POST', '/admin/v1/categories', { slug: 'evil', label: '\u0000' })],
      ['host slug with U+0000', await asAdmin('GET', '/admin/v1/hosts/a%00b')],
      ['host slug with U+0000, suspended', await asAdmin('POST', '/admin/v1/hosts/a%00b/suspend')],
      ['key id with U+0000', await asAdmin('POST', '/admin/v1/keys/key_%00/revoke')],
      ['path not UTF-8', await asAdmin('GET', '/admin/v1/hosts/%ff')],
      ['provider path not UTF-8', await call(server, 'GET', '/api/v1/products/%c0%af', { token: target.key })],
      ['cursor with U+0000', await call(server, 'GET', '/api/v1/products?cursor=%00', { token: target.key })],
      ['status with U+0000', await call(server, 'GET', '/api/v1/products?status=%00', { token: target.key })],
    ];
    for (const [what, answer] of answers) {
      expectDocumentedAnswer(answer, null, false);
      expect([400, 404, 422], what).toContain(answer.status);
    }
    // The public directory: its API and its pages take paths and queries from anyone.
    const publicPaths = [
      '/api/v1/directory/hosts/a%00b',
      '/api/v1/directory/products/prd_%00',
      '/api/v1/directory/products?q=%00',
      '/api/v1/directory/products?location=%00&feature=%ed%a0%80',
      '/api/v1/directory/products?q=((%22%5C&category=%00',
      '/api/v1/directory/products?min_price=1e309&max_price=-0',
      '/api/v1/directory/hosts?cursor=%00',
      '/hosts/a%00b',
      '/products/prd_%00',
      '/categories/%00',
      '/search?q=%00&location=%00',
      '/search?q=%F0%9F%98%80%00',
    ];
    for (const path of publicPaths) {
      const answer = await call(server, 'GET', path);
      expect([200, 400, 404, 422], path).toContain(answer.status);
      // The API answers problems; the pages may answer an HTML page for a 404.
      const expected = path.startsWith('/api/')
        ? /^application\/problem\+json/
        : /^(application\/problem\+json|text\/html)/;
      if (answer.status !== 200) expect(answer.headers.get('content-type'), path).toMatch(expected);
    }
    expect(await state()).toBe(before);
    await expectAlive();
  });

  it('survives lying Content-Length headers, cut-off bodies and garbage HTTP on a bare socket', async () => {
    const before = await state();
    const valid = serialize({ products: [product('fuzz-0')] });
    const length = Buffer.byteLength(valid);
    const exchanges: [string, (string | Buffer)[], { end?: boolean }][] = [
      [
        'Content-Length larger than the body, then the client hangs up',
        [syncHead(target.key, length + 100), valid],
        { end: true },
      ],
      ['Content-Length smaller than the body', [syncHead(target.key, length - 10), valid], {}],
      ['Content-Length not a number', [syncHead(target.key, 'abc'), valid], {}],
      ['Content-Length negative', [syncHead(target.key, -5), valid], {}],
      [
        'two Content-Length headers that differ',
        [syncHead(target.key, length, [`Content-Length: ${length + 1}`]), valid],
        {},
      ],
      [
        'Content-Length with Transfer-Encoding',
        [syncHead(target.key, length, ['Transfer-Encoding: chunked']), valid],
        {},
      ],
      [
        'a chunked body cut short',
        [syncHead(target.key, null, ['Transfer-Encoding: chunked']), `${length.toString(16)}\r\n${valid.slice(0, 50)}`],
        { end: true },
      ],
      [
        'a broken chunk size',
        [syncHead(target.key, null, ['Transfer-Encoding: chunked']), 'zz\r\n{}\r\n0\r\n\r\n'],
        {},
      ],
      ['half a request line', ['POST /api/v1/sync/pro'], { end: true }],
      ['garbage instead of HTTP', [Buffer.from([0, 1, 2, 255, 13, 10, 13, 10])], {}],
      ['a header without a colon', ['GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'], {}],
      ['a request line with a space in the path', ['GET /api/v1/ products HTTP/1.1\r\nHost: x\r\n\r\n'], {}],
    ];
    for (const [what, parts, options] of exchanges) {
      const exchange = await rawExchange(server.port, parts, { ...options, deadlineMs: 5_000 });
      for (const response of exchange.responses) {
        expect(DOCUMENTED.has(response.status), `${what}: ${response.status}`).toBe(true);
        expect(response.headers['content-type'], `${what}: ${response.status} ${response.body}`).toMatch(
          /^application\/(problem\+)?json/,
        );
        if (response.status !== 200) expect(JSON.parse(response.body).code, what).toBeTypeOf('string');
        expect(response.status, what).not.toBe(200);
      }
      expect(await state(), what).toBe(before);
      await expectAlive();
    }
  });
});
