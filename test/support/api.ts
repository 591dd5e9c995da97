// Small HTTP helpers the end-to-end tests share: onboarding a host, syncing, realistic products. Every answer
// call() receives is checked against the server's own OpenAPI document (see openapi-check.ts).
import { checkAgainstDocument } from './openapi-check.js';
import type { ServerUnderTest } from './server.js';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(
  server: ServerUnderTest,
  method: string,
  path: string,
  options: { token?: string; json?: unknown; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const answer = { status: response.status, headers: response.headers, body: parsed as T, text };
  await checkAgainstDocument(server.url, method, path, answer);
  return answer;
}

export function admin<T = any>(
  server: ServerUnderTest,
  method: string,
  path: string,
  json?: unknown,
): Promise<Answer<T>> {
  return call<T>(server, method, `/admin/v1${path}`, {
    token: server.adminToken,
    ...(json === undefined ? {} : { json }),
  });
}

export interface Onboarded {
  slug: string;
  key: string;
  keyId: string;
}

export async function onboard(
  server: ServerUnderTest,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<Onboarded> {
  const answer = await admin(server, 'POST', '/hosts', { name, ...extra });
  if (answer.status !== 201) throw new Error(`onboarding failed: ${answer.status} ${answer.text}`);
  return { slug: answer.body.host.slug, key: answer.body.api_key.key, keyId: answer.body.api_key.id };
}

export function sync(server: ServerUnderTest, key: string, products: unknown[], query = ''): Promise<Answer> {
  return call(server, 'POST', `/api/v1/sync/products${query}`, { token: key, json: { products } });
}

/** A complete product with every field filled, about 500 bytes of JSON. */
export function product(externalId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: externalId,
    name: `Cloud VPS ${externalId}`,
    category: 'vps_cloud',
    price: 9.99,
    currency: 'usd',
    description: 'A fast virtual server with NVMe storage and a dedicated IPv4 address.',
    specs: { cpu_cores: 2, ram_gb: 4, disk_gb: 80, ipv6: true },
    pricing_tiers: [
      { period: 'monthly', price: 9.99 },
      { period: 'annually', price: 99 },
    ],
    setup_fee: 0,
    contract_duration: '1 month',
    features: ['NVMe', 'DDoS protection'],
    datacenter_locations: ['Frankfurt', 'Amsterdam'],
    ...overrides,
  };
}
