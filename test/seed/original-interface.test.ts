// Conformance to the original interface document (shared as seed/000_eeb661391ccce8c3.txt beside the contract):
// one test per statement of it that a client can observe, each named by the document's own words, end to end over
// HTTP on both stores. The document outranks every later decision: when one of these fails, the service has
// drifted from the user's text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, type Answer, type Onboarded } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';

const SYNC = '/api/v1/sync/products';

/** The document's own product: only the three required fields. */
const minimal = (externalId: string, category = 'vps_cloud') => ({ name: `Plan ${externalId}`, external_id: externalId, category });

/** Every field of the document's Product table, each with the type the table gives it. */
const complete = (externalId: string) => ({
  name: 'Complete VPS',
  external_id: externalId,
  category: 'vps_cloud',
  price: 12.5,
  currency: 'EUR',
  description: 'Every field of the Product table',
  specs: { cpu: '4 vCPU', ram: '8 GB' },
  pricing_tiers: [
    { period: 'Monthly', price: 12.5 },
    { period: 'Semi-Annually', price: 70 },
    { period: '1 year', price: 130 },
  ],
  setup_fee: 9.99,
  contract_duration: '12 months',
  features: ['DDoS protection', 'Backups'],
  datacenter_locations: ['Frankfurt', 'Amsterdam'],
});

function post(server: TestServer, key: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(server, 'POST', SYNC, {
    ...(key === null ? {} : { token: key }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

async function listing(server: TestServer, key: string): Promise<Record<string, any>> {
  const answer = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: key });
  expect(answer.status).toBe(200);
  return Object.fromEntries(answer.body.products.map((p: { external_id: string }) => [p.external_id, p]));
}

/** "Payloads and error responses are JSON", each failure "with an error code". */
function expectError(answer: Answer, status: number, code: string): any {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/json/);
  const body = JSON.parse(answer.text);
  expect(body.code).toBe(code);
  return body;
}

describe.each(STORES)('the original interface document (%s store)', (store) => {
  /** the documented defaults: one applied sync per host per five minutes */
  let server: TestServer;
  /** the same service with a window that allows several applied syncs, for statements about successive syncs */
  let roomy: TestServer;
  let hosts = 0;
  const newHost = (): Promise<Onboarded> => onboard(server, `Seed ${store} ${++hosts}`);

  beforeAll(async () => {
    [server, roomy] = await Promise.all([startServer(store), startServer(store, { env: { SYNC_MAX_PER_WINDOW: '10' } })]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), roomy?.stop()]);
  });

  describe('What the service does', () => {
    it('"It exposes one HTTP endpoint that takes a JSON array of products from a provider\'s billing system and applies it to that provider\'s listing."', async () => {
      const host = await newHost();
      const answer = await post(server, host.key, { products: [minimal('a'), minimal('b')] });
      expect(answer.status, answer.text).toBe(200);
      expect(Object.keys(await listing(server, host.key)).sort()).toEqual(['a', 'b']);
    });

    it('"The submitted products are created, updated or deactivated on the listing."', async () => {
      // Two applied syncs of one host, five minutes apart as far as the window is concerned: a server whose window
      // allows more than one.
      const host = await onboard(roomy, 'Seed lifecycle');
      const first = await post(roomy, host.key, { products: [minimal('keep'), minimal('change'), minimal('drop')] });
      expect(first.body.products.map((p: { action: string }) => p.action)).toEqual(['created', 'created', 'created']);
      const second = await post(roomy, host.key, { products: [minimal('keep'), { ...minimal('change'), name: 'Changed' }] });
      expect(second.status, second.text).toBe(200);
      expect(second.body.products.map((p: { action: string }) => p.action)).toEqual(['unchanged', 'updated']);
      expect(second.body.deactivated.map((p: { external_id: string }) => p.external_id)).toEqual(['drop']);
      const held = await listing(roomy, host.key);
      expect(held.change.name).toBe('Changed');
      expect(held.drop.status).toBe('inactive');
      expect(held.keep.status).toBe('active');
    });

    it('"Each call is authenticated with an API key that belongs to the provider."', async () => {
      const host = await newHost();
      expectError(await post(server, null, { products: [minimal('x')] }), 401, 'UNAUTHORIZED');
      expect((await post(server, host.key, { products: [minimal('x')] })).status).toBe(200);
    });

    it('"Payloads and error responses are JSON."', async () => {
      const host = await newHost();
      const refused = await post(server, host.key, { products: [{ name: 'no id' }] });
      expectError(refused, 422, 'VALIDATION_FAILED');
      const ok = await post(server, host.key, { products: [minimal('x')] });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
      expect(() => JSON.parse(ok.text)).not.toThrow();
    });
  });

  describe('Product', () => {
    it('accepts every field of the Product table with the type the table gives it', async () => {
      const host = await newHost();
      const answer = await post(server, host.key, { products: [complete('full')] });
      expect(answer.status, answer.text).toBe(200);
      const held = (await listing(server, host.key)).full;
      expect(held).toMatchObject({
        name: 'Complete VPS',
        category: 'vps_cloud',
        price: 12.5,
        currency: 'EUR',
        description: 'Every field of the Product table',
        specs: { cpu: '4 vCPU', ram: '8 GB' },
        setup_fee: 9.99,
        features: ['DDoS protection', 'Backups'],
        datacenter_locations: ['Frankfurt', 'Amsterdam'],
      });
      expect(held.pricing_tiers.map((tier: { period: string; price: number }) => [tier.period, tier.price])).toEqual([
        ['Monthly', 12.5],
        ['Semi-Annually', 70],
        ['1 year', 130],
      ]);
    });

    it('"name | string | yes", "external_id | string | yes", "category | string | yes": each missing is refused', async () => {
      const host = await newHost();
      for (const field of ['name', 'external_id', 'category'] as const) {
        const product: Record<string, unknown> = minimal('r');
        delete product[field];
        const body = expectError(await post(server, host.key, { products: [product] }), 422, 'VALIDATION_FAILED');
        expect(JSON.stringify(body), field).toContain(field);
      }
      expect(await listing(server, host.key)).toEqual({});
    });

    it('"Each product must carry name, external_id and category; all other fields are optional."', async () => {
      const host = await newHost();
      const full = complete('f');
      const optional = Object.keys(full).filter((field) => !['name', 'external_id', 'category'].includes(field));
      expect(optional.sort()).toEqual(
        ['contract_duration', 'currency', 'datacenter_locations', 'description', 'features', 'price', 'pricing_tiers', 'setup_fee', 'specs'],
      );
      // One catalogue in which each product lacks one optional field.
      const products = optional.map((field) => {
        const product: Record<string, unknown> = { ...full, external_id: `without-${field}` };
        delete product[field];
        return product;
      });
      const answer = await post(server, host.key, { products });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.summary.created).toBe(optional.length);
    });

    it('"A minimal valid body holds one product with only those three fields."', async () => {
      const host = await newHost();
      const answer = await post(server, host.key, { products: [{ name: 'Minimal', external_id: 'min-1', category: 'vps_cloud' }] });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.products).toEqual([expect.objectContaining({ external_id: 'min-1', action: 'created' })]);
      expect((await listing(server, host.key))['min-1']).toMatchObject({ name: 'Minimal', category: 'vps_cloud', status: 'active' });
    });

    it('"price | float | no | Monthly price": a fractional price is kept, and a product without one is listed', async () => {
      const host = await newHost();
      const answer = await post(server, host.key, { products: [{ ...minimal('p1'), price: 4.99 }, minimal('p2')] });
      expect(answer.status, answer.text).toBe(200);
      const held = await listing(server, host.key);
      expect(held.p1.price).toBe(4.99);
      expect(held.p2.status).toBe('active');
      const directory = await call(server, 'GET', `/api/v1/directory/products/${held.p1.id}`);
      expect(directory.body.product.monthly_price).toBe(4.99);
    });

    it('"currency | string | no | ISO 4217 currency code"', async () => {
      const host = await newHost();
      expect((await post(server, host.key, { products: [{ ...minimal('c'), currency: 'GBP' }] })).status).toBe(200);
      expect((await listing(server, host.key)).c.currency).toBe('GBP');
    });

    it('"specs | object | no | Technical specifications as key-value pairs (keys and values are free-form, string values)"', async () => {
      const host = await newHost();
      const specs = { 'RAM (GB)': '2', 'Memory': '4 GB', 'Ünïcode key': 'värde', 'empty': '' };
      expect((await post(server, host.key, { products: [{ ...minimal('s'), specs }] })).status).toBe(200);
      expect((await listing(server, host.key)).s.specs).toEqual(specs);
    });

    it('"pricing_tiers | array | no | each element is an object with period (string) and price (number)": any period string', async () => {
      const host = await newHost();
      const tiers = [
        { period: 'monthly', price: 5 },
        { period: 'Quarterly', price: 14 },
        { period: 'Annually', price: 50 },
        { period: 'Biennially', price: 95 },
        { period: 'One Time', price: 1 },
        { period: 'per lunar month', price: 4 },
      ];
      const answer = await post(server, host.key, { products: [{ ...minimal('t'), price: 5, pricing_tiers: tiers }] });
      expect(answer.status, answer.text).toBe(200);
      expect((await listing(server, host.key)).t.pricing_tiers.map((tier: { period: string }) => tier.period)).toEqual(tiers.map((t) => t.period));
    });

    it('"setup_fee | float | no | Setup fee"', async () => {
      const host = await newHost();
      expect((await post(server, host.key, { products: [{ ...minimal('s'), setup_fee: 19.95 }] })).status).toBe(200);
      expect((await listing(server, host.key)).s.setup_fee).toBe(19.95);
    });

    it('"contract_duration | string | no | Contract duration"', async () => {
      const host = await newHost();
      const products = ['12 months', '1 month', '1 year', 'P1M', 'none'].map((duration, i) => ({ ...minimal(`d${i}`), contract_duration: duration }));
      const answer = await post(server, host.key, { products });
      expect(answer.status, answer.text).toBe(200);
    });

    it('"features | array | no | List of included features (strings)" and "datacenter_locations | array | no | List of datacenter locations (strings)"', async () => {
      const host = await newHost();
      const answer = await post(server, host.key, {
        products: [{ ...minimal('l'), features: ['IPv6', 'NVMe'], datacenter_locations: ['Frankfurt am Main', 'NYC'] }],
      });
      expect(answer.status, answer.text).toBe(200);
      expect((await listing(server, host.key)).l).toMatchObject({ features: ['IPv6', 'NVMe'], datacenter_locations: ['Frankfurt am Main', 'NYC'] });
    });

    it('"the examples given are vps_cloud and game_minecraft"', async () => {
      const host = await newHost();
      const answer = await post(server, host.key, { products: [minimal('v', 'vps_cloud'), minimal('g', 'game_minecraft')] });
      expect(answer.status, answer.text).toBe(200);
      const held = await listing(server, host.key);
      expect([held.v.category, held.g.category]).toEqual(['vps_cloud', 'game_minecraft']);
    });

    it('"external_id … Identifier of the product in the provider\'s billing system; unique"', async () => {
      const host = await newHost();
      expectError(await post(server, host.key, { products: [minimal('same'), minimal('same')] }), 422, 'VALIDATION_FAILED');
      expect(await listing(server, host.key)).toEqual({});
    });
  });

  describe('Request envelope', () => {
    it('"products | array of Product | yes | The products to synchronize"', async () => {
      const host = await newHost();
      expectError(await post(server, host.key, {}), 422, 'VALIDATION_FAILED');
      expectError(await post(server, host.key, { products: 'not an array' }), 422, 'VALIDATION_FAILED');
      expect(await listing(server, host.key)).toEqual({});
    });
  });

  describe('Authentication', () => {
    it('"Every request carries the header Authorization: Bearer <API_KEY>."', async () => {
      const host = await newHost();
      expectError(await post(server, null, { products: [minimal('x')] }), 401, 'UNAUTHORIZED');
      expectError(await post(server, null, { products: [minimal('x')] }, { authorization: host.key }), 401, 'UNAUTHORIZED');
      expect((await post(server, null, { products: [minimal('x')] }, { authorization: `Bearer ${host.key}` })).status).toBe(200);
    });

    it('"The API key starts with rk_ followed by 64 hex characters (67 characters total)."', async () => {
      const host = await newHost();
      expect(host.key).toMatch(/^rk_[0-9a-f]{64}$/);
      expect(host.key).toHaveLength(67);
    });

    it('"When the key is missing or invalid, the response is status 401 with error code UNAUTHORIZED."', async () => {
      const host = await newHost();
      for (const key of [`rk_${'0'.repeat(64)}`, 'rk_short', host.key.slice(0, 66), `${host.key}0`, 'not-a-key']) {
        expectError(await post(server, key, { products: [minimal('x')] }), 401, 'UNAUTHORIZED');
      }
      expectError(await post(server, null, { products: [minimal('x')] }), 401, 'UNAUTHORIZED');
      expect(await listing(server, host.key)).toEqual({});
    });

    it('"When the key has been revoked or is inactive, the response is status 403 with error code KEY_REVOKED."', async () => {
      const revoked = await newHost();
      expect((await admin(server, 'POST', `/keys/${revoked.keyId}/revoke`)).status).toBe(200);
      expectError(await post(server, revoked.key, { products: [minimal('x')] }), 403, 'KEY_REVOKED');
      const suspended = await newHost();
      expect((await admin(server, 'POST', `/hosts/${suspended.slug}/suspend`)).status).toBe(200);
      expectError(await post(server, suspended.key, { products: [minimal('x')] }), 403, 'KEY_REVOKED');
    });

    it('"The key identifies the provider ("host") whose listing is changed and to whom the rate limit applies."', async () => {
      const one = await newHost();
      const two = await newHost();
      expect((await post(server, one.key, { products: [{ ...minimal('shared'), name: 'One' }] })).status).toBe(200);
      // The other host is not limited by the first host's sync, and its product of the same external_id is its own.
      expect((await post(server, two.key, { products: [{ ...minimal('shared'), name: 'Two' }] })).status).toBe(200);
      expect((await listing(server, one.key)).shared.name).toBe('One');
      expect((await listing(server, two.key)).shared.name).toBe('Two');
      expectError(await post(server, one.key, { products: [minimal('shared')] }), 429, 'RATE_LIMITED');
    });
  });

  describe('Endpoints', () => {
    it('"Content-Type | application/json | yes"', async () => {
      const host = await newHost();
      const answer = await post(server, host.key, JSON.stringify({ products: [minimal('x')] }), { 'content-type': 'text/plain' });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(typeof JSON.parse(answer.text).code).toBe('string');
      expect(await listing(server, host.key)).toEqual({});
      expect((await post(server, host.key, { products: [minimal('x')] }, { 'content-type': 'application/json' })).status).toBe(200);
    });

    it('"On failure: one of the status codes listed under Errors, with an error code."', async () => {
      const host = await newHost();
      expectError(await post(server, host.key, { products: [{}] }), 422, 'VALIDATION_FAILED');
      expectError(await post(server, host.key, 'not json'), 422, 'VALIDATION_FAILED');
    });
  });

  describe('Errors', () => {
    it('"422 | VALIDATION_FAILED | Payload invalid; validation errors (for example a missing required field)"', async () => {
      const host = await newHost();
      const body = expectError(await post(server, host.key, { products: [{ name: 'No id', category: 'vps_cloud' }] }), 422, 'VALIDATION_FAILED');
      expect(body.errors).toEqual([expect.objectContaining({ pointer: '/products/0/external_id', code: 'required' })]);
    });

    it('"500 | INTERNAL_ERROR | Internal server error" is a code the service documents', async () => {
      const document = await call(server, 'GET', '/api/v1/openapi.json');
      expect(JSON.stringify(document.body.paths[SYNC].post.responses['500'])).toContain('INTERNAL_ERROR');
      const page = await call(server, 'GET', '/api/v1/problems/internal-error', { headers: { accept: 'application/json' } });
      expect(page.status).toBe(200);
    });
  });

  describe('Limits', () => {
    it('"Request rate | 1 request per 5 minutes per host (provider), sliding window" and "When the rate is exceeded, the response is status 429 with code RATE_LIMITED."', async () => {
      const host = await newHost();
      expect((await post(server, host.key, { products: [minimal('r')] })).status).toBe(200);
      const limited = expectError(await post(server, host.key, { products: [minimal('r'), minimal('s')] }), 429, 'RATE_LIMITED');
      expect(limited.status).toBe(429);
      // Within five minutes, still limited; nothing of the refused sync was applied.
      expectError(await post(server, host.key, { products: [minimal('t')] }), 429, 'RATE_LIMITED');
      expect(Object.keys(await listing(server, host.key))).toEqual(['r']);
    });
  });

  describe('Versioning', () => {
    it('"The version is part of the path: the endpoint lives under /api/v1/."', async () => {
      const host = await newHost();
      expect((await call(server, 'POST', '/api/v2/sync/products', { token: host.key, json: { products: [minimal('x')] } })).status).toBe(404);
      expect((await call(server, 'POST', '/sync/products', { token: host.key, json: { products: [minimal('x')] } })).status).toBe(404);
      expect((await post(server, host.key, { products: [minimal('x')] })).status).toBe(200);
    });
  });
});
