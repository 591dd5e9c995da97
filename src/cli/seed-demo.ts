// `hostdir seed-demo`: onboards the example providers through the admin API and pushes their catalogues
// through the real sync endpoint, exactly as a provider's billing system would; a directory without exchange rates
// gets the demo's dated snapshot of the ECB's, so that its prices convert and sort across currencies at once.
import { AdminApiError, type AdminClient, problemFrom, UnreachableError } from './admin-client.js';
import { DEMO_HOSTS, DEMO_RATES, DEMO_RATES_SOURCE, type DemoHost } from './demo-catalogue.js';

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

export interface SeededDemo {
  hosts: SeededHost[];
  /** the day of the demo's exchange rates, and whether they were imported (false: the directory had rates already) */
  rates: { date: string; imported: boolean };
}

/**
 * The demo's rates, unless the directory has rates of its own: those (imported or fetched from RATES_URL) are never
 * overwritten by the snapshot.
 */
async function seedRates(client: AdminClient): Promise<SeededDemo['rates']> {
  const held = await client.listRates({});
  if (held.rates.length > 0) return { date: DEMO_RATES.date, imported: false };
  await client.importRates(JSON.stringify(DEMO_RATES), DEMO_RATES_SOURCE);
  return { date: DEMO_RATES.date, imported: true };
}

/** A host that exists already (409) is skipped, so that running it twice does no harm. */
export async function seedDemo(
  client: AdminClient,
  baseUrl: string,
  fetchFn: typeof fetch = fetch,
): Promise<SeededDemo> {
  // Before the catalogues: each sync then stores its plans' EUR prices at once.
  const rates = await seedRates(client);
  const hosts: SeededHost[] = [];
  for (const host of DEMO_HOSTS) {
    let key: string;
    try {
      const created = await client.createHost({
        name: host.name,
        slug: host.slug,
        default_currency: host.default_currency,
      });
      key = created.api_key.key;
    } catch (error) {
      if (error instanceof AdminApiError && error.code === 'CONFLICT') {
        hosts.push({ slug: host.slug, name: host.name, products: null });
        continue;
      }
      throw error;
    }
    await client.updateHost(host.slug, host.profile);
    hosts.push({ slug: host.slug, name: host.name, products: await pushCatalogue(baseUrl, fetchFn, key, host) });
  }
  return { hosts, rates };
}
