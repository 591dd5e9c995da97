// Shared by the conformance suite of the original interface document (/work/shared/seed/000_…txt, the user's own
// text): assertions keyed on what that document says, which is less than the contract says. The document names
// an error by its status and its error code and says error responses are JSON; the field carrying the code is
// `code` (the contract's name for it).
import { expect } from 'vitest';
import { call, type Answer } from '../support/api.js';
import type { TestServer } from '../support/server.js';

export const SYNC = '/api/v1/sync/products';

/** The document's API key format: `rk_` + 64 hexadecimal characters, 67 in all. */
export const KEY_FORMAT = /^rk_[0-9a-f]{64}$/;

/** An error answer as the document describes it: the status, a JSON body, and the error code in that body. */
export function expectError(answer: Answer, status: number, code: string): any {
  expect(answer.status, answer.text).toBe(status);
  expectJsonErrorBody(answer);
  expect(answer.body.code).toBe(code);
  return answer.body;
}

/** "Payloads and error responses are JSON", and an error carries an error code. */
export function expectJsonErrorBody(answer: Answer): any {
  expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
  expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/(problem\+)?json(;|$)/);
  const parsed = JSON.parse(answer.text) as Record<string, unknown>;
  expect(typeof parsed).toBe('object');
  expect(typeof parsed.code, answer.text).toBe('string');
  expect((parsed.code as string).length).toBeGreaterThan(0);
  return parsed;
}

/** The validation details of a 422: the JSON Pointers its entries name. */
export function pointersOf(body: any): string[] {
  expect(Array.isArray(body.errors), JSON.stringify(body)).toBe(true);
  return body.errors.map((entry: { pointer?: string }) => entry.pointer);
}

/** The host's listing as its provider sees it with the same key: every status. */
export async function listing(server: TestServer, key: string): Promise<any[]> {
  const answer = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: key });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.next_cursor).toBeNull();
  return answer.body.products;
}

export function byExternalId(products: any[]): Record<string, any> {
  return Object.fromEntries(products.map((p) => [p.external_id, p]));
}

/** A product with only the three fields the document requires. */
export function minimal(externalId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `Plan ${externalId}`, external_id: externalId, category: 'vps_cloud', ...overrides };
}

/**
 * A product with every field of the document's Product table, each of its documented type: price and setup_fee
 * floats, an ISO 4217 currency, specs of string values, pricing tiers of {period (string), price (number)},
 * features and datacenter locations as arrays of strings.
 */
export function everyField(externalId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `Cloud VPS ${externalId}`,
    external_id: externalId,
    category: 'vps_cloud',
    price: 9.99,
    currency: 'EUR',
    description: 'A virtual server with NVMe storage.',
    specs: { cpu: '2 vCores', ram: '4 GB', disk: '80 GB NVMe' },
    pricing_tiers: [
      { period: 'monthly', price: 9.99 },
      { period: 'annually', price: 99.5 },
    ],
    setup_fee: 4.99,
    contract_duration: '12 months',
    features: ['DDoS protection', 'Daily backups'],
    datacenter_locations: ['Frankfurt', 'Amsterdam'],
    ...overrides,
  };
}

/** A product with every documented field but `field`. */
export function without(field: string, externalId: string): Record<string, unknown> {
  const { [field]: _left, ...rest } = everyField(externalId);
  return rest;
}
