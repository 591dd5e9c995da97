// Assertions the end-to-end suites share: problem+json as the contract shapes it (section 5), and what a host holds.
import { expect } from 'vitest';
import { admin, call, type Answer } from '../support/api.js';
import type { TestServer } from '../support/server.js';

export const PROBLEM_SLUGS: Record<string, { status: number; slug: string }> = {
  BAD_REQUEST: { status: 400, slug: 'bad-request' },
  UNAUTHORIZED: { status: 401, slug: 'unauthorized' },
  KEY_REVOKED: { status: 403, slug: 'key-revoked' },
  NOT_FOUND: { status: 404, slug: 'not-found' },
  METHOD_NOT_ALLOWED: { status: 405, slug: 'method-not-allowed' },
  PAYLOAD_TOO_LARGE: { status: 413, slug: 'payload-too-large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, slug: 'unsupported-media-type' },
  VALIDATION_FAILED: { status: 422, slug: 'validation-failed' },
  RATE_LIMITED: { status: 429, slug: 'rate-limited' },
  SERVICE_UNAVAILABLE: { status: 503, slug: 'service-unavailable' },
};

/** The answer is the problem `code` with every member of the contract's shape; returns its body. */
export function expectProblem(answer: Answer, code: keyof typeof PROBLEM_SLUGS, instance: string): any {
  const expected = PROBLEM_SLUGS[code]!;
  expect(answer.status, answer.text).toBe(expected.status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json(;|$)/);
  const requestId = answer.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  expect(answer.body).toMatchObject({
    type: `/api/v1/problems/${expected.slug}`,
    title: expect.any(String),
    status: expected.status,
    code,
    detail: expect.any(String),
    instance,
    request_id: requestId,
  });
  expect(answer.body.title.length).toBeGreaterThan(0);
  expect(answer.body.detail.length).toBeGreaterThan(0);
  return answer.body;
}

/** Everything a refused request could have touched: the host's whole listing and its sync history. */
export async function snapshotOf(server: TestServer, slug: string): Promise<{ products: unknown; runs: unknown }> {
  const products = await admin(server, 'GET', `/hosts/${slug}/products?status=all&limit=1000`);
  const runs = await admin(server, 'GET', `/hosts/${slug}/syncs`);
  expect(products.status).toBe(200);
  expect(runs.status).toBe(200);
  return { products: products.body.products, runs: runs.body.runs };
}

/** The host's listing as its provider sees it (GET /api/v1/products), every status, one page of up to 1000. */
export async function listingOf(server: TestServer, key: string, status = 'all'): Promise<any[]> {
  const answer = await call(server, 'GET', `/api/v1/products?status=${status}&limit=1000`, { token: key });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.next_cursor).toBeNull();
  return answer.body.products;
}
