// Conformance of the original interface document (the user's own text, which outranks the contract): one test per
// statement a client can observe, named by the document's words, end to end over HTTP against the real server
// with the document's own rate limit (1 applied sync per 5 minutes per host), on both stores. Every test onboards
// the hosts it needs, so each host's single sync of the window is its own.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, sync, type Answer } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import {
  KEY_FORMAT,
  SYNC,
  byExternalId,
  everyField,
  expectError,
  expectJsonErrorBody,
  listing,
  minimal,
  pointersOf,
  without,
} from './helpers.js';

const OPTIONAL_FIELDS = [
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

const unknownKey = () => `rk_${randomBytes(32).toString('hex')}`;

/** A POST of raw bytes; without contentType no Content-Type header is sent at all (a Buffer body has none). */
function post(
  server: TestServer,
  path: string,
  options: { key?: string; body: string; contentType?: string; headers?: Record<string, string> },
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  const body = options.contentType === undefined ? Buffer.from(options.body) : options.body;
  return call(server, 'POST', path, { ...(options.key ? { token: options.key } : {}), body, headers });
}

describe.each(STORES)('the interface document, statement by statement (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    // No rate-limit settings: the document's 1 request per 5 minutes per host, as the server ships.
    server = await startServer(store);
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe('What the service does', () => {
    it('"It exposes one HTTP endpoint that takes a JSON array of products from a provider\'s billing system and applies it to that provider\'s listing."', async () => {
      const host = await onboard(server, 'Seed Applies Hosting');
      expect(await listing(server, host.key)).toEqual([]);
      const answer = await sync(server, host.key, [
        everyField('vps-1'),
        everyField('vps-2', { name: 'Cloud VPS Two' }),
      ]);
      expect(answer.status, answer.text).toBe(200);
      const listed = byExternalId(await listing(server, host.key));
      expect(Object.keys(listed).sort()).toEqual(['vps-1', 'vps-2']);
      expect(listed['vps-2'].name).toBe('Cloud VPS Two');
    });

    it('"Each call is authenticated with an API key that belongs to the provider."', async () => {
      const owner = await onboard(server, 'Seed Key Owner');
      const other = await onboard(server, 'Seed Key Other');
      const answer = await sync(server, owner.key, [minimal('mine', { price: 5 })]);
      expect(answer.status, answer.text).toBe(200);
      // The call changed the listing of the provider the key belongs to, and no other.
      expect((await listing(server, owner.key)).map((p) => p.external_id)).toEqual(['mine']);
      expect(await listing(server, other.key)).toEqual([]);
    });

    it('"Payloads and error responses are JSON." — a successful answer is JSON', async () => {
      const host = await onboard(server, 'Seed Json Answer');
      const answer = await sync(server, host.key, [everyField('json-1')]);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/json(;|$)/);
      expect(typeof JSON.parse(answer.text)).toBe('object');
    });

    it('"Payloads and error responses are JSON." — every error answer of the endpoint is JSON and carries its error code', async () => {
      const host = await onboard(server, 'Seed Json Errors');
      const limited = await onboard(server, 'Seed Json Errors Limited');
      const revoked = await onboard(server, 'Seed Json Errors Revoked');
      expect((await admin(server, 'POST', `/keys/${revoked.keyId}/revoke`)).status).toBe(200);
      expect((await sync(server, limited.key, [minimal('first', { price: 1 })])).status).toBe(200);

      const body = JSON.stringify({ products: [minimal('a', { price: 1 })] });
      const answers: [Answer, number, string][] = [
        [await post(server, SYNC, { body, contentType: 'application/json' }), 401, 'UNAUTHORIZED'],
        [await post(server, SYNC, { key: unknownKey(), body, contentType: 'application/json' }), 401, 'UNAUTHORIZED'],
        [await post(server, SYNC, { key: revoked.key, body, contentType: 'application/json' }), 403, 'KEY_REVOKED'],
        [
          await post(server, SYNC, { key: host.key, body: '{"products": [', contentType: 'application/json' }),
          422,
          'VALIDATION_FAILED',
        ],
        [await sync(server, host.key, [{ name: 'No id', category: 'vps_cloud' }]), 422, 'VALIDATION_FAILED'],
        [await post(server, SYNC, { key: limited.key, body, contentType: 'application/json' }), 429, 'RATE_LIMITED'],
      ];
      for (const [answer, status, code] of answers) expectError(answer, status, code);
      // Refused by its Content-Type: the document names no code for it, but it is still a JSON error with a code.
      expectJsonErrorBody(await post(server, SYNC, { key: host.key, body, contentType: 'text/plain' }));
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"The base address is {base_url}. All paths below are relative to it." — the endpoint answers at {base_url}/api/v1/sync/products', async () => {
      const host = await onboard(server, 'Seed Base Address');
      const response = await fetch(new URL('api/v1/sync/products', `${server.url}/`), {
        method: 'POST',
        headers: { authorization: `Bearer ${host.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [minimal('at-base', { price: 3 })] }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      expect((await listing(server, host.key)).map((p) => p.external_id)).toEqual(['at-base']);
    });
  });

  describe('Versioning', () => {
    it('"The version is part of the path: the endpoint lives under `/api/v1/`."', async () => {
      const host = await onboard(server, 'Seed Versioned Path');
      const body = JSON.stringify({ products: [minimal('versioned', { price: 3 })] });
      // The same request without the version, or with another one, is not the endpoint and changes nothing.
      for (const path of ['/sync/products', '/api/sync/products', '/api/v2/sync/products']) {
        const answer = await post(server, path, { key: host.key, body, contentType: 'application/json' });
        expect(answer.status, `${path}: ${answer.text}`).toBeGreaterThanOrEqual(400);
        expectJsonErrorBody(answer);
      }
      expect(await listing(server, host.key)).toEqual([]);
      const applied = await post(server, '/api/v1/sync/products', {
        key: host.key,
        body,
        contentType: 'application/json',
      });
      expect(applied.status, applied.text).toBe(200);
      expect((await listing(server, host.key)).map((p) => p.external_id)).toEqual(['versioned']);
    });
  });

  describe('Product: the fields and their types', () => {
    it('"name | string | yes | Product name"', async () => {
      const host = await onboard(server, 'Seed Name');
      expect((await sync(server, host.key, [everyField('n-1', { name: 'Game Server Deluxe (16 GB)' })])).status).toBe(
        200,
      );
      expect((await listing(server, host.key))[0].name).toBe('Game Server Deluxe (16 GB)');
    });

    it('"external_id | string | yes | Identifier of the product in the provider\'s billing system"', async () => {
      const host = await onboard(server, 'Seed External Id');
      const ids = ['42', 'whmcs:pid-17', 'Product/Alpha 1'];
      expect(
        (
          await sync(
            server,
            host.key,
            ids.map((id) => everyField(id)),
          )
        ).status,
      ).toBe(200);
      expect((await listing(server, host.key)).map((p) => p.external_id).sort()).toEqual([...ids].sort());
    });

    it('"category | string | yes | Product category; the examples given are `vps_cloud` and `game_minecraft`"', async () => {
      const host = await onboard(server, 'Seed Categories');
      const answer = await sync(server, host.key, [
        everyField('vps', { category: 'vps_cloud' }),
        everyField('mc', { category: 'game_minecraft', name: 'Minecraft 4 GB' }),
      ]);
      expect(answer.status, answer.text).toBe(200);
      const listed = byExternalId(await listing(server, host.key));
      expect(listed.vps.category).toBe('vps_cloud');
      expect(listed.mc.category).toBe('game_minecraft');
    });

    it('"price | float | no | Monthly price"', async () => {
      const host = await onboard(server, 'Seed Price');
      const answer = await sync(server, host.key, [
        everyField('cents', { price: 4.99 }),
        everyField('whole', { price: 12 }),
        everyField('free', { price: 0 }),
        everyField('fine', { price: 0.125 }),
      ]);
      expect(answer.status, answer.text).toBe(200);
      const listed = byExternalId(await listing(server, host.key));
      expect([listed.cents.price, listed.whole.price, listed.free.price, listed.fine.price]).toEqual([
        4.99, 12, 0, 0.125,
      ]);
    });

    it('"currency | string | no | ISO 4217 currency code"', async () => {
      const host = await onboard(server, 'Seed Currency');
      const codes = ['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'SEK'];
      const answer = await sync(
        server,
        host.key,
        codes.map((code) => everyField(`in-${code}`, { currency: code })),
      );
      expect(answer.status, answer.text).toBe(200);
      const listed = byExternalId(await listing(server, host.key));
      for (const code of codes) expect(listed[`in-${code}`].currency).toBe(code);
    });

    it('"currency | string | no | ISO 4217 currency code" — a value that is no ISO 4217 code is an invalid payload', async () => {
      const host = await onboard(server, 'Seed Bad Currency');
      const body = expectError(
        await sync(server, host.key, [everyField('x', { currency: 'EURO' })]),
        422,
        'VALIDATION_FAILED',
      );
      expect(pointersOf(body)).toContain('/products/0/currency');
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"description | string | no | Product description"', async () => {
      const host = await onboard(server, 'Seed Description');
      const description = 'Fast NVMe storage.\nDDoS protection included — 24/7 support, «ümlauts» and emoji 🚀.';
      expect((await sync(server, host.key, [everyField('d', { description })])).status).toBe(200);
      expect((await listing(server, host.key))[0].description).toBe(description);
    });

    it('"specs | object | no | Technical specifications as key-value pairs (keys and values are free-form, string values)"', async () => {
      const host = await onboard(server, 'Seed Specs');
      const specs = {
        'CPU Cores': '4',
        RAM: '8 GB DDR4',
        'disk.type': 'NVMe SSD',
        'Größe / Size': 'mittel',
        bandwidth: 'unmetered',
        'Player slots': 'unlimited',
      };
      const answer = await sync(server, host.key, [everyField('s', { specs })]);
      expect(answer.status, answer.text).toBe(200);
      expect((await listing(server, host.key))[0].specs).toEqual(specs);
    });

    it('"pricing_tiers | array | no | Pricing tiers; each element is an object with `period` (string) and `price` (number)"', async () => {
      const host = await onboard(server, 'Seed Pricing Tiers');
      const tiers = [
        { period: 'monthly', price: 9.99 },
        { period: 'quarterly', price: 28.5 },
        { period: 'annually', price: 99 },
      ];
      const answer = await sync(server, host.key, [everyField('t', { pricing_tiers: tiers })]);
      expect(answer.status, answer.text).toBe(200);
      const listed = (await listing(server, host.key))[0].pricing_tiers;
      expect(listed.map((tier: any) => tier.price)).toEqual([9.99, 28.5, 99]);
      for (const tier of listed) expect(typeof tier.period).toBe('string');
    });

    // "Allowed values of `period` in a pricing tier ...: not shown": `period` is a string, so billing systems'
    // own names of their periods are valid.
    it.each([
      ['WHMCS billing cycles', ['Monthly', 'Quarterly', 'Semi-Annually', 'Annually', 'Biennially', 'Triennially']],
      ['periods spelled with a number', ['1 month', '3 months', '6 months', '1 year', '2 years']],
      ['other spellings', ['month', 'Yearly', 'One Time', 'per 28 days']],
    ])('"`period` (string)" with the allowed values "not shown": %s are accepted', async (_name, periods) => {
      const host = await onboard(server, `Seed Periods ${randomBytes(3).toString('hex')}`);
      const tiers = periods.map((period, k) => ({ period, price: 10 + k }));
      const answer = await sync(server, host.key, [everyField('periods', { pricing_tiers: tiers })]);
      expect(answer.status, answer.text).toBe(200);
      const listed = (await listing(server, host.key))[0].pricing_tiers;
      expect(listed.map((tier: any) => tier.price)).toEqual(tiers.map((tier) => tier.price));
    });

    it('"setup_fee | float | no | Setup fee"', async () => {
      const host = await onboard(server, 'Seed Setup Fee');
      const answer = await sync(server, host.key, [
        everyField('fee', { setup_fee: 19.95 }),
        everyField('none', { setup_fee: 0 }),
      ]);
      expect(answer.status, answer.text).toBe(200);
      const listed = byExternalId(await listing(server, host.key));
      expect(listed.fee.setup_fee).toBe(19.95);
      expect(listed.none.setup_fee).toBe(0);
    });

    // "Format of `contract_duration`: not shown": a duration written the way a billing system writes it is valid.
    it('"contract_duration | string | no | Contract duration" — durations such as "12 months" are accepted', async () => {
      const host = await onboard(server, 'Seed Contract Duration');
      const durations = ['12 months', '1 month', '1 year', '24 Months', '2 years', 'P12M'];
      const answer = await sync(
        server,
        host.key,
        durations.map((d, k) => everyField(`c-${k}`, { contract_duration: d })),
      );
      expect(answer.status, answer.text).toBe(200);
      for (const p of await listing(server, host.key)) expect(typeof p.contract_duration).toBe('string');
    });

    it('"contract_duration | string | no | Contract duration" — a duration in words without a number ("Month-to-month") is accepted', async () => {
      const host = await onboard(server, 'Seed Contract Words');
      const durations = ['Month-to-month', 'No minimum term', 'Annual'];
      const answer = await sync(
        server,
        host.key,
        durations.map((d, k) => everyField(`w-${k}`, { contract_duration: d })),
      );
      expect(answer.status, answer.text).toBe(200);
      expect(await listing(server, host.key)).toHaveLength(durations.length);
    });

    it('"features | array | no | List of included features (strings)"', async () => {
      const host = await onboard(server, 'Seed Features');
      const features = ['DDoS protection', 'Daily backups', 'Root access', '99.9 % uptime SLA'];
      expect((await sync(server, host.key, [everyField('f', { features })])).status).toBe(200);
      expect((await listing(server, host.key))[0].features).toEqual(features);
    });

    it('"datacenter_locations | array | no | List of datacenter locations (strings)"', async () => {
      const host = await onboard(server, 'Seed Locations');
      const locations = ['Frankfurt, DE', 'Ashburn, VA, US', 'Singapore'];
      expect((await sync(server, host.key, [everyField('l', { datacenter_locations: locations })])).status).toBe(200);
      expect((await listing(server, host.key))[0].datacenter_locations).toEqual(locations);
    });

    it('every field of the Product table at once, each of its documented type, is accepted and listed', async () => {
      const host = await onboard(server, 'Seed Every Field');
      const sent = everyField('all');
      const answer = await sync(server, host.key, [sent]);
      expect(answer.status, answer.text).toBe(200);
      const [listed] = await listing(server, host.key);
      expect(listed).toMatchObject({
        name: sent.name,
        external_id: 'all',
        category: 'vps_cloud',
        price: 9.99,
        currency: 'EUR',
        description: sent.description,
        specs: sent.specs,
        setup_fee: 4.99,
        features: sent.features,
        datacenter_locations: sent.datacenter_locations,
      });
      expect(listed.pricing_tiers.map((tier: any) => tier.price)).toEqual([9.99, 99.5]);
      expect(typeof listed.contract_duration).toBe('string');
    });

    // A value of another type than the table gives makes the payload invalid: 422 VALIDATION_FAILED.
    it.each([
      ['name', 'string', 42],
      ['external_id', 'string', 17],
      ['category', 'string', ['vps_cloud']],
      ['price', 'float', '9.99'],
      ['currency', 'string', 978],
      ['description', 'string', { text: 'x' }],
      ['specs', 'object', 'cpu=4'],
      ['pricing_tiers', 'array', { period: 'monthly', price: 5 }],
      ['setup_fee', 'float', '0'],
      ['contract_duration', 'string', 12],
      ['features', 'array', 'DDoS protection'],
      ['datacenter_locations', 'array', 'Frankfurt'],
    ])('"%s | %s": a value of another type is refused with 422 VALIDATION_FAILED', async (field, _type, value) => {
      const host = await onboard(server, `Seed Type ${field}`);
      const body = expectError(
        await sync(server, host.key, [everyField('typed', { [field]: value })]),
        422,
        'VALIDATION_FAILED',
      );
      expect(
        pointersOf(body).some((pointer) => pointer.startsWith(`/products/0/${field}`)),
        JSON.stringify(body),
      ).toBe(true);
      expect(await listing(server, host.key)).toEqual([]);
    });

    it.each([
      ['`period` (string)', { period: 12, price: 5 }, 'period'],
      ['`price` (number)', { period: 'monthly', price: '5.00' }, 'price'],
    ])(
      '"each element is an object with %s": a tier of another type is refused with 422 VALIDATION_FAILED',
      async (_name, tier, member) => {
        const host = await onboard(server, `Seed Tier Type ${member}`);
        const body = expectError(
          await sync(server, host.key, [everyField('tier', { pricing_tiers: [tier] })]),
          422,
          'VALIDATION_FAILED',
        );
        expect(pointersOf(body)).toContain(`/products/0/pricing_tiers/0/${member}`);
        expect(await listing(server, host.key)).toEqual([]);
      },
    );

    it.each([
      ['specs', '(keys and values are free-form, string values)', { cpu: { cores: 4 } }, '/products/0/specs/cpu'],
      ['features', '(strings)', ['NVMe', { name: 'backups' }], '/products/0/features/1'],
      ['datacenter_locations', '(strings)', ['Frankfurt', 7], '/products/0/datacenter_locations/1'],
    ])(
      '"%s … %s": an element that is not a string is refused with 422 VALIDATION_FAILED',
      async (field, _words, value, pointer) => {
        const host = await onboard(server, `Seed Element ${field}`);
        const body = expectError(
          await sync(server, host.key, [everyField('el', { [field]: value })]),
          422,
          'VALIDATION_FAILED',
        );
        expect(pointersOf(body)).toContain(pointer);
        expect(await listing(server, host.key)).toEqual([]);
      },
    );
  });

  describe('Product: required and optional fields', () => {
    it.each(['name', 'external_id', 'category'])(
      '"Each product must carry `name`, `external_id` and `category`" — without %s: 422 VALIDATION_FAILED naming the field',
      async (field) => {
        const host = await onboard(server, `Seed Requires ${field}`);
        const answer = await sync(server, host.key, [without(field, 'p-1')]);
        const body = expectError(answer, 422, 'VALIDATION_FAILED');
        expect(pointersOf(body)).toContain(`/products/0/${field}`);
        expect(await listing(server, host.key)).toEqual([]);
      },
    );

    it('"Each product must carry `name`, `external_id` and `category`" — one product without them refuses the payload', async () => {
      const host = await onboard(server, 'Seed Requires In Second');
      const answer = await sync(server, host.key, [everyField('good'), { external_id: 'bad', price: 5 }]);
      const body = expectError(answer, 422, 'VALIDATION_FAILED');
      expect(pointersOf(body)).toEqual(expect.arrayContaining(['/products/1/name', '/products/1/category']));
      expect(await listing(server, host.key)).toEqual([]);
    });

    it.each(OPTIONAL_FIELDS)(
      '"all other fields are optional": a product without %s is accepted and listed',
      async (field) => {
        const host = await onboard(server, `Seed Optional ${field}`);
        const answer = await sync(server, host.key, [without(field, 'opt')]);
        expect(answer.status, answer.text).toBe(200);
        const listed = await listing(server, host.key);
        expect(listed.map((p) => [p.external_id, p.status])).toEqual([['opt', 'active']]);
      },
    );

    it('"A minimal valid body holds one product with only those three fields."', async () => {
      const host = await onboard(server, 'Seed Minimal Body');
      const answer = await call(server, 'POST', SYNC, {
        token: host.key,
        json: { products: [{ name: 'Starter', external_id: 'starter', category: 'vps_cloud' }] },
      });
      expect(answer.status, answer.text).toBe(200);
      const listed = await listing(server, host.key);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({
        name: 'Starter',
        external_id: 'starter',
        category: 'vps_cloud',
        status: 'active',
      });
    });

    it('"A minimal valid body holds one product with only those three fields." — with the other category example, game_minecraft', async () => {
      const host = await onboard(server, 'Seed Minimal Minecraft');
      const answer = await sync(server, host.key, [
        { name: 'Minecraft 2 GB', external_id: 'mc-2', category: 'game_minecraft' },
      ]);
      expect(answer.status, answer.text).toBe(200);
      expect((await listing(server, host.key)).map((p) => [p.external_id, p.category])).toEqual([
        ['mc-2', 'game_minecraft'],
      ]);
    });
  });

  describe('Request envelope', () => {
    it.each([
      ['no products member', {}],
      ['products that is not an array', { products: { name: 'x', external_id: 'x', category: 'vps_cloud' } }],
      ['products that is a string', { products: 'all' }],
    ])(
      '"products | array of Product | yes": a body with %s is refused with 422 VALIDATION_FAILED',
      async (_name, json) => {
        const host = await onboard(server, `Seed Envelope ${randomBytes(3).toString('hex')}`);
        const body = expectError(await call(server, 'POST', SYNC, { token: host.key, json }), 422, 'VALIDATION_FAILED');
        expect(pointersOf(body)).toContain('/products');
        expect(await listing(server, host.key)).toEqual([]);
      },
    );

    it('"**Request body**: a JSON object with a required `products` array of Product objects"', async () => {
      const host = await onboard(server, 'Seed Envelope Array');
      const answer = await call(server, 'POST', SYNC, { token: host.key, json: [everyField('bare')] });
      expectError(answer, 422, 'VALIDATION_FAILED');
      expect(await listing(server, host.key)).toEqual([]);
      const wrapped = await call(server, 'POST', SYNC, { token: host.key, json: { products: [everyField('bare')] } });
      expect(wrapped.status, wrapped.text).toBe(200);
    });

    it('"external_id | … | unique": two products with one external_id are refused with 422 VALIDATION_FAILED', async () => {
      const host = await onboard(server, 'Seed Unique External Id');
      const answer = await sync(server, host.key, [
        everyField('twin', { name: 'First' }),
        everyField('other'),
        everyField('twin', { name: 'Second' }),
      ]);
      const body = expectError(answer, 422, 'VALIDATION_FAILED');
      expect(pointersOf(body)).toContain('/products/2/external_id');
      expect(await listing(server, host.key)).toEqual([]);
    });
  });

  describe('API key', () => {
    it('"Format: the prefix `rk_` followed by 64 hexadecimal characters; 67 characters in total."', async () => {
      const created = await admin(server, 'POST', '/hosts', { name: 'Seed Key Format' });
      expect(created.status, created.text).toBe(201);
      const first: string = created.body.api_key.key;
      const rotated = await admin(server, 'POST', `/hosts/${created.body.host.slug}/keys`);
      expect(rotated.status, rotated.text).toBe(201);
      const second: string = rotated.body.api_key.key;
      for (const key of [first, second]) {
        expect(key).toMatch(KEY_FORMAT);
        expect(key).toHaveLength(67);
      }
      expect(second).not.toBe(first);
      // Both keys of that format are accepted by the endpoint.
      expect((await call(server, 'GET', '/api/v1/products', { token: first })).status).toBe(200);
      expect((await sync(server, second, [everyField('k')])).status).toBe(200);
    });
  });

  describe('Authentication', () => {
    it('"Every request carries the header `Authorization: Bearer <API_KEY>`."', async () => {
      const host = await onboard(server, 'Seed Bearer Header');
      const body = JSON.stringify({ products: [everyField('b')] });
      // The key anywhere but in a Bearer Authorization header does not authenticate.
      const elsewhere = [
        await post(server, SYNC, { body, contentType: 'application/json', headers: { authorization: host.key } }),
        await post(server, SYNC, { body, contentType: 'application/json', headers: { 'x-api-key': host.key } }),
        await post(server, `${SYNC}?api_key=${host.key}`, { body, contentType: 'application/json' }),
      ];
      for (const answer of elsewhere) expectError(answer, 401, 'UNAUTHORIZED');
      expect(await listing(server, host.key)).toEqual([]);
      const carried = await post(server, SYNC, {
        body,
        contentType: 'application/json',
        headers: { authorization: `Bearer ${host.key}` },
      });
      expect(carried.status, carried.text).toBe(200);
      expect((await listing(server, host.key)).map((p) => p.external_id)).toEqual(['b']);
    });

    it('"When the key is missing … the response is status 401 with error code `UNAUTHORIZED`."', async () => {
      const answer = await post(server, SYNC, {
        body: JSON.stringify({ products: [everyField('m')] }),
        contentType: 'application/json',
      });
      expectError(answer, 401, 'UNAUTHORIZED');
    });

    it('"When the key is … invalid, the response is status 401 with error code `UNAUTHORIZED`." — a well-formed key nobody was given', async () => {
      const host = await onboard(server, 'Seed Unknown Key');
      const answer = await sync(server, unknownKey(), [everyField('u')]);
      expectError(answer, 401, 'UNAUTHORIZED');
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"The API key starts with `rk_` followed by 64 hex characters (67 characters total)." — a key of another form is invalid: 401 UNAUTHORIZED', async () => {
      const host = await onboard(server, 'Seed Malformed Key');
      const malformed = [
        host.key.slice(0, -1), // 66 characters
        `${host.key}0`, // 68 characters
        `sk_${host.key.slice(3)}`, // another prefix
        `rk_${'g'.repeat(64)}`, // not hexadecimal
        'rk_123',
      ];
      for (const key of malformed) expectError(await sync(server, key, [everyField('x')]), 401, 'UNAUTHORIZED');
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"When the key has been revoked …, the response is status 403 with error code `KEY_REVOKED`."', async () => {
      const host = await onboard(server, 'Seed Revoked Key');
      expect((await admin(server, 'POST', `/keys/${host.keyId}/revoke`)).status).toBe(200);
      expectError(await sync(server, host.key, [everyField('r')]), 403, 'KEY_REVOKED');
      // Nothing changed: the host's other (new) key sees an empty listing.
      const fresh = await admin(server, 'POST', `/hosts/${host.slug}/keys`);
      expect(fresh.status).toBe(201);
      expect(await listing(server, fresh.body.api_key.key)).toEqual([]);
    });

    it('"When the key … is inactive, the response is status 403 with error code `KEY_REVOKED`." — the key of a suspended host', async () => {
      const host = await onboard(server, 'Seed Inactive Key');
      expect((await admin(server, 'POST', `/hosts/${host.slug}/suspend`)).status).toBe(200);
      expectError(await sync(server, host.key, [everyField('i')]), 403, 'KEY_REVOKED');
      expect((await admin(server, 'POST', `/hosts/${host.slug}/activate`)).status).toBe(200);
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"The key identifies the provider ("host") whose listing is changed"', async () => {
      const a = await onboard(server, 'Seed Host A');
      const b = await onboard(server, 'Seed Host B');
      expect(
        (await sync(server, a.key, [everyField('shared', { name: 'From A', price: 10 }), everyField('only-a')])).status,
      ).toBe(200);
      expect((await sync(server, b.key, [everyField('shared', { name: 'From B', price: 20 })])).status).toBe(200);
      const listedA = byExternalId(await listing(server, a.key));
      const listedB = byExternalId(await listing(server, b.key));
      expect(Object.keys(listedA).sort()).toEqual(['only-a', 'shared']);
      expect(Object.keys(listedB)).toEqual(['shared']);
      expect([listedA.shared.name, listedA.shared.price]).toEqual(['From A', 10]);
      expect([listedB.shared.name, listedB.shared.price]).toEqual(['From B', 20]);
      expect(listedA.shared.status).toBe('active');
      expect(listedA.shared.id).not.toBe(listedB.shared.id);
    });

    it('"… and to whom the rate limit applies." — one host limited does not limit another, and every key of the host shares its limit', async () => {
      const a = await onboard(server, 'Seed Limit Host A');
      const b = await onboard(server, 'Seed Limit Host B');
      const secondKeyOfA = await admin(server, 'POST', `/hosts/${a.slug}/keys`);
      expect(secondKeyOfA.status).toBe(201);
      expect((await sync(server, a.key, [everyField('a-1')])).status).toBe(200);
      expectError(await sync(server, a.key, [everyField('a-2')]), 429, 'RATE_LIMITED');
      expectError(await sync(server, secondKeyOfA.body.api_key.key, [everyField('a-2')]), 429, 'RATE_LIMITED');
      const other = await sync(server, b.key, [everyField('b-1')]);
      expect(other.status, other.text).toBe(200);
      expect((await listing(server, a.key)).map((p) => p.external_id)).toEqual(['a-1']);
      expect((await listing(server, b.key)).map((p) => p.external_id)).toEqual(['b-1']);
    });
  });

  describe('Request headers', () => {
    it.each([
      ['text/plain', 'text/plain'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['no Content-Type at all', undefined],
    ])(
      '"Content-Type | `application/json` | yes": a JSON body sent as %s is refused with an error code and changes nothing',
      async (_name, contentType) => {
        const host = await onboard(server, `Seed Content Type ${randomBytes(3).toString('hex')}`);
        const body = JSON.stringify({ products: [everyField('ct')] });
        const answer = await post(server, SYNC, {
          key: host.key,
          body,
          ...(contentType === undefined ? {} : { contentType }),
        });
        expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
        expect(answer.status, answer.text).toBeLessThan(500);
        expectJsonErrorBody(answer);
        expect(await listing(server, host.key)).toEqual([]);
        // The very same body with the required Content-Type, from another host of the directory, is accepted.
        const control = await onboard(server, `Seed Content Type Control ${randomBytes(3).toString('hex')}`);
        expect((await post(server, SYNC, { key: control.key, body, contentType: 'application/json' })).status).toBe(
          200,
        );
      },
    );
  });

  describe('Errors', () => {
    it('"401 | UNAUTHORIZED | API key invalid or missing"', async () => {
      const host = await onboard(server, 'Seed Error 401');
      expectError(
        await sync(server, `${host.key.slice(0, -1)}${host.key.endsWith('0') ? '1' : '0'}`, [everyField('e')]),
        401,
        'UNAUTHORIZED',
      );
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"403 | KEY_REVOKED | API key revoked or inactive"', async () => {
      const host = await onboard(server, 'Seed Error 403');
      expect((await admin(server, 'POST', `/keys/${host.keyId}/revoke`)).status).toBe(200);
      expectError(await sync(server, host.key, [everyField('e')]), 403, 'KEY_REVOKED');
    });

    it('"422 | VALIDATION_FAILED | Payload invalid; validation errors (for example a missing required field)" — the body carries the validation errors', async () => {
      const host = await onboard(server, 'Seed Error 422');
      const answer = await sync(server, host.key, [
        everyField('ok'),
        without('category', 'no-category'),
        without('name', 'no-name'),
      ]);
      const body = expectError(answer, 422, 'VALIDATION_FAILED');
      const pointers = pointersOf(body);
      expect(pointers).toEqual(expect.arrayContaining(['/products/1/category', '/products/2/name']));
      for (const entry of body.errors) {
        expect(typeof entry.code).toBe('string');
        expect(typeof entry.detail).toBe('string');
      }
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"422 | VALIDATION_FAILED | Payload invalid" — a body that is not JSON', async () => {
      const host = await onboard(server, 'Seed Error 422 Json');
      const answer = await post(server, SYNC, {
        key: host.key,
        body: '{"products": [{"name": "x",',
        contentType: 'application/json',
      });
      expectError(answer, 422, 'VALIDATION_FAILED');
      expect(await listing(server, host.key)).toEqual([]);
    });

    it('"429 | RATE_LIMITED | Rate limit exceeded"', async () => {
      const host = await onboard(server, 'Seed Error 429');
      expect((await sync(server, host.key, [everyField('first')])).status).toBe(200);
      expectError(await sync(server, host.key, [everyField('second')]), 429, 'RATE_LIMITED');
    });

    it('"500 | INTERNAL_ERROR | Internal server error" — the endpoint documents it in /api/v1/openapi.json', async () => {
      const answer = await call(server, 'GET', '/api/v1/openapi.json');
      expect(answer.status).toBe(200);
      const operation = answer.body.paths['/api/v1/sync/products'].post;
      const documented = operation.responses['500'];
      expect(documented, JSON.stringify(Object.keys(operation.responses))).toBeDefined();
      // A problem answer is the named Problem narrowed to its codes (allOf), or a schema of its own.
      const codesOf = (schema: any) =>
        JSON.stringify(
          schema.properties?.code ?? schema.allOf.find((part: any) => part.properties?.code).properties.code,
        );
      const media = documented.content['application/problem+json'] ?? documented.content['application/json'];
      expect(codesOf(media.schema)).toContain('"INTERNAL_ERROR"');
      // Every status the document lists is documented for the endpoint, each with its code.
      for (const [status, code] of [
        ['401', 'UNAUTHORIZED'],
        ['403', 'KEY_REVOKED'],
        ['422', 'VALIDATION_FAILED'],
        ['429', 'RATE_LIMITED'],
      ]) {
        const response = operation.responses[status!];
        expect(response, status).toBeDefined();
        const schema = (response.content['application/problem+json'] ?? response.content['application/json']).schema;
        expect(codesOf(schema), status).toContain(`"${code}"`);
      }
    });
  });

  describe('Limits', () => {
    it('"Request rate | 1 request per 5 minutes per host (provider), sliding window" — a second sync within 5 minutes is refused and changes nothing', async () => {
      const host = await onboard(server, 'Seed Rate Limit');
      const first = await sync(server, host.key, [everyField('v1', { name: 'Version one' })]);
      expect(first.status, first.text).toBe(200);
      const before = await listing(server, host.key);
      expectError(
        await sync(server, host.key, [everyField('v1', { name: 'Version two' }), everyField('v2')]),
        429,
        'RATE_LIMITED',
      );
      expect(await listing(server, host.key)).toEqual(before);
    });

    it('"When the rate is exceeded, the response is status 429 with code `RATE_LIMITED`."', async () => {
      const host = await onboard(server, 'Seed Rate Exceeded');
      expect((await sync(server, host.key, [everyField('one')])).status).toBe(200);
      for (let n = 0; n < 3; n++) expectError(await sync(server, host.key, [everyField('one')]), 429, 'RATE_LIMITED');
    });
  });
});
