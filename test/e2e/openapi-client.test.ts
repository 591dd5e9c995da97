// Clients generated from the served OpenAPI document by three third-party generators (openapi-typescript,
// @hey-api/openapi-ts, orval), offline, compile under tsc --strict with the named types (Product, Problem, …) and
// the operations' own names; the openapi-typescript one compiles what the original interface calls valid and
// refuses what it calls invalid, and the other two, compiled to JavaScript, talk to the running server.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate as orval } from 'orval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

const CLIENT = `
import type { components, paths } from './api.js';

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

// The named schemas.
export const named = (product: components['schemas']['Product'], problem: components['schemas']['Problem']): string =>
  \`\${product.external_id}: \${problem.code} \${problem.detail}\`;
`;

/** Typed by @hey-api/openapi-ts (its fetch client): the SDK's functions carry the operations' names. */
const HEY_API_CLIENT = `
import { client } from './hey/client.gen.js';
import { listOwnProducts, searchDirectoryProducts, syncProducts, type ListedProduct, type Problem, type Product } from './hey/index.js';

export async function run(baseUrl: string, key: string) {
  client.setConfig({ baseUrl });
  const headers = { authorization: \`Bearer \${key}\` };
  const found = await searchDirectoryProducts({ query: { sort: 'price', limit: 2 } });
  const listed: ListedProduct[] = found.data?.products ?? [];
  const own = await listOwnProducts({ headers, query: { status: 'all' } });
  const products: Product[] = own.data?.products ?? [];
  const refused = await syncProducts({
    headers,
    query: { dry_run: 'true' },
    body: { products: [{ name: 'X', external_id: 'x', category: 'no_such_category' }] },
  });
  const problem: Problem | undefined = refused.error;
  return { listed: listed.map((p) => p.name), own: products.map((p) => p.external_id), problem: problem?.code, status: refused.response.status };
}
`;

/** Typed by orval (its fetch client): one function per operation, answers by status. */
const ORVAL_CLIENT = `
import { getDirectoryProduct, listOwnProducts, searchDirectoryProducts, syncProducts, type ListedProduct, type Problem, type Product } from './orval/api.js';

export async function run(key: string) {
  const headers = { authorization: \`Bearer \${key}\` };
  const found = await searchDirectoryProducts({ sort: 'price', limit: 2 });
  const listed: ListedProduct[] = found.status === 200 ? found.data.products : [];
  const one = await getDirectoryProduct(listed[0]?.id ?? 'prd_none');
  const own = await listOwnProducts({ status: 'all' }, { headers });
  const products: Product[] = own.status === 200 ? own.data.products : [];
  const missing = await getDirectoryProduct('prd_00000000000000000000000000');
  const problem: Problem | undefined = missing.status === 404 ? missing.data : undefined;
  const refused = await syncProducts({ products: [{ name: 'X', external_id: 'x', category: 'no_such_category' }] }, { dry_run: 'true' }, { headers });
  return {
    listed: listed.map((p) => p.name),
    one: one.status === 200 ? one.data.product.name : null,
    own: products.map((p) => p.external_id),
    problem: problem?.code,
    refused: refused.status === 422 ? refused.data.code : null,
  };
}
`;

async function strictTsc(files: string[], outDir?: string): Promise<void> {
  const args = [
    '--strict',
    '--target',
    'es2022',
    '--lib',
    'es2022,dom',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--skipLibCheck',
    ...(outDir ? ['--outDir', outDir] : ['--noEmit']),
    ...files,
  ];
  const { stdout } = await promisify(execFile)(process.execPath, [TSC, ...args], { timeout: 240_000 }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      throw new Error(`tsc refused the generated client:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    },
  );
  expect(stdout).toBe('');
}

describe('clients generated from the OpenAPI document', () => {
  let server: TestServer;
  let dir: string;
  let host: Onboarded;
  let documentFile: string;

  beforeAll(async () => {
    server = await startServer('embedded');
    dir = await mkdtemp(path.join(tmpdir(), 'hostdir-client-'));
    // The compiled clients are ES modules.
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    host = await onboard(server, 'Generated Clients');
    expect(
      (await sync(server, host.key, [product('gen-1', { price: 3 }), product('gen-2', { price: 5 })])).status,
    ).toBe(200);
    const answer = await call(server, 'GET', '/api/v1/openapi.json');
    expect(answer.status).toBe(200);
    documentFile = path.join(dir, 'openapi.json');
    await writeFile(documentFile, answer.text);
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('openapi-typescript: compiles a product of only name, external_id and category under tsc --strict, with named types', async () => {
    const document = JSON.parse(await readFile(documentFile, 'utf8'));
    await writeFile(path.join(dir, 'api.ts'), astToString(await openapiTS(document)));
    await writeFile(path.join(dir, 'client.ts'), CLIENT);
    await strictTsc([path.join(dir, 'client.ts')]);
  });

  it('@hey-api/openapi-ts and orval: named types and operations compile under tsc --strict and talk to the server', async () => {
    await heyApi({
      input: documentFile,
      output: path.join(dir, 'hey'),
      plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
      logs: { level: 'silent' },
    });
    await orval({
      input: { target: documentFile },
      output: { target: path.join(dir, 'orval/api.ts'), client: 'fetch', mode: 'single', baseUrl: server.url },
    });
    const types = await readFile(path.join(dir, 'hey/types.gen.ts'), 'utf8');
    const orvalApi = await readFile(path.join(dir, 'orval/api.ts'), 'utf8');
    for (const name of ['Product', 'ListedProduct', 'Problem', 'SyncAnswer', 'Host', 'Category']) {
      expect(types, name).toMatch(new RegExp(`^export type ${name} = `, 'm'));
      expect(orvalApi, name).toMatch(new RegExp(`^export (interface ${name} |type ${name} = )`, 'm'));
    }
    await writeFile(path.join(dir, 'hey-client.ts'), HEY_API_CLIENT);
    await writeFile(path.join(dir, 'orval-client.ts'), ORVAL_CLIENT);
    const out = path.join(dir, 'out');
    await strictTsc([path.join(dir, 'hey-client.ts'), path.join(dir, 'orval-client.ts')], out);
    await writeFile(path.join(out, 'package.json'), JSON.stringify({ type: 'module' }));

    const hey = await import(pathToFileURL(path.join(out, 'hey-client.js')).href);
    expect(await hey.run(server.url, host.key)).toEqual({
      listed: ['Cloud VPS gen-1', 'Cloud VPS gen-2'],
      own: ['gen-1', 'gen-2'],
      problem: 'VALIDATION_FAILED',
      status: 422,
    });
    const generated = await import(pathToFileURL(path.join(out, 'orval-client.js')).href);
    expect(await generated.run(host.key)).toEqual({
      listed: ['Cloud VPS gen-1', 'Cloud VPS gen-2'],
      one: 'Cloud VPS gen-1',
      own: ['gen-1', 'gen-2'],
      problem: 'NOT_FOUND',
      refused: 'VALIDATION_FAILED',
    });
  });
});
