// `hostdir seed-demo`: onboards the example providers through the admin API and pushes their catalogues
// through the real sync endpoint, exactly as a provider's billing system would.
import { AdminApiError, type AdminClient, problemFrom, UnreachableError } from './admin-client.js';
import { DEMO_HOSTS, type DemoHost } from './demo-catalogue.js';

export interface SeededHost {
  slug: string;
  name: string;
  /** products synced, or null when the host already existed and was left alone */
  products: number | null;
}

async function pushCatalogue(baseUrl: string, fetchFn: typeof fetch, key: string, host: DemoHost): Promise<number> {
  let response: Response;
  try {
    response = await fetchFn(`${baseUrl}/api/v1/sync/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ products: host.products }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new UnreachableError(baseUrl, error instanceof Error ? error.message : String(error));
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.status !== 200) throw problemFrom(response.status, body);
  return (body as { summary: { received: number } }).summary.received;
}

/** A host that exists already (409) is skipped, so that running it twice does no harm. */
export async function seedDemo(client: AdminClient, baseUrl: string, fetchFn: typeof fetch = fetch): Promise<SeededHost[]> {
  const seeded: SeededHost[] = [];
  for (const host of DEMO_HOSTS) {
    let key: string;
    try {
      const created = await client.createHost({ name: host.name, slug: host.slug, default_currency: host.default_currency });
      key = created.api_key.key;
    } catch (error) {
      if (error instanceof AdminApiError && error.code === 'CONFLICT') {
        seeded.push({ slug: host.slug, name: host.name, products: null });
        continue;
      }
      throw error;
    }
    seeded.push({ slug: host.slug, name: host.name, products: await pushCatalogue(baseUrl, fetchFn, key, host) });
  }
  return seeded;
}
