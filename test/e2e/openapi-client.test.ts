// A client typed from the served OpenAPI document by a third-party generator (openapi-typescript) compiles what
// the original interface calls valid, under tsc --strict, and refuses what it calls invalid.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

const CLIENT = `
import type { paths } from './api.js';

type SyncBody = paths['/api/v1/sync/products']['post']['requestBody']['content']['application/json'];
type Listing = paths['/api/v1/products']['get']['responses'][200]['content']['application/json'];

// "A minimal valid body holds one product with only those three fields."
export const minimal: SyncBody = { products: [{ name: 'Minimal', external_id: 'min-1', category: 'vps_cloud' }] };
export const priceNull: SyncBody = { products: [{ name: 'Quoted', external_id: 'q-1', category: 'colocation', price: null }] };
export const billingPeriods: SyncBody = {
  products: [
    {
      name: 'VPS', external_id: 'vps-1', category: 'vps_cloud', price: 5,
      pricing_tiers: [{ period: 'Monthly', price: 5 }, { period: 'Semi-Annually', price: 27 }, { period: '1 year', price: 50 }],
    },
  ],
};
// @ts-expect-error category is required
export const noCategory: SyncBody = { products: [{ name: 'X', external_id: 'x' }] };

// A listed product may have no price.
export function priceOf(listing: Listing): (number | null)[] {
  return listing.products.map((product) => product.price);
}
`;

describe('a client generated from the OpenAPI document', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startServer('embedded');
    dir = await mkdtemp(path.join(tmpdir(), 'hostdir-client-'));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('compiles a product of only name, external_id and category under tsc --strict', async () => {
    const answer = await call(server, 'GET', '/api/v1/openapi.json');
    expect(answer.status).toBe(200);
    await writeFile(path.join(dir, 'api.ts'), astToString(await openapiTS(answer.body)));
    await writeFile(path.join(dir, 'client.ts'), CLIENT);
    const args = ['--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      path.join(dir, 'client.ts')];
    const { stdout } = await promisify(execFile)(process.execPath, [TSC, ...args], { timeout: 120_000 }).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`tsc refused the generated client:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
      },
    );
    expect(stdout).toBe('');
  });
});
