// Reading a provider's catalogue straight from its billing system: where it is and which credentials to use (from
// the environment, never the command line), the calls each system's API documents, and the mapped catalogue with
// a report of what was left out. Used by `hostdir push --from` and `hostdir import`.
import { BillingAnswerError } from '../connectors/answer.js';
import { blestaHasOptions, blestaPackage, blestaPage, blestaRefusal } from '../connectors/blesta.js';
import {
  type BillingProduct,
  catalogueFrom,
  type ImportedCatalogue,
  type ProductLabel,
} from '../connectors/catalogue.js';
import { type CategoryMap, EMPTY_CATEGORY_MAP, parseCategoryMap } from '../connectors/category-map.js';
import {
  type HostbillOrderPage,
  hostbillOrderPages,
  hostbillProducts,
  hostbillRefusal,
} from '../connectors/hostbill.js';
import { whmcsProducts, whmcsRefusal } from '../connectors/whmcs.js';
import { ConfigError } from './admin-client.js';
import {
  type BillingHttp,
  BillingSystemError,
  callBillingSystem,
  displayUrl,
  redact,
  unexpectedAnswer,
} from './billing-http.js';

export const BILLING_SYSTEMS = ['whmcs', 'blesta', 'hostbill'] as const;
export type BillingSystem = (typeof BILLING_SYSTEMS)[number];

const NAMES: Record<BillingSystem, string> = { whmcs: 'WHMCS', blesta: 'Blesta', hostbill: 'HostBill' };

/** Where each system's API lives under the address a provider gives, and the environment it reads. */
const SETUP: Record<
  BillingSystem,
  { endpoint: string; urlVariable: string; credentials: readonly string[]; optional: readonly string[] }
> = {
  whmcs: {
    endpoint: '/includes/api.php',
    urlVariable: 'WHMCS_URL',
    credentials: ['WHMCS_IDENTIFIER', 'WHMCS_SECRET'],
    optional: ['WHMCS_ACCESS_KEY'],
  },
  blesta: {
    endpoint: '/api',
    urlVariable: 'BLESTA_URL',
    credentials: ['BLESTA_API_USER', 'BLESTA_API_KEY'],
    optional: [],
  },
  hostbill: {
    endpoint: '/admin/api.php',
    urlVariable: 'HOSTBILL_URL',
    credentials: ['HOSTBILL_API_ID', 'HOSTBILL_API_KEY'],
    optional: [],
  },
};

/** Default seconds to wait for one answer of a billing system (HOSTDIR_BILLING_TIMEOUT_SECONDS). */
export const DEFAULT_BILLING_TIMEOUT_SECONDS = 60;
/** Package details read from Blesta at once. */
const BLESTA_CONCURRENCY = 4;
/** Bounds on a billing system that pages or nests without end. */
const MAX_PAGES = 10_000;
const MAX_ORDER_PAGE_DEPTH = 5;

export interface BillingSource {
  system: BillingSystem;
  /** the API's address: WHMCS's includes/api.php, Blesta's api/, HostBill's admin/api.php */
  endpoint: URL;
  credentials: Readonly<Record<string, string>>;
}

export interface BillingDeps {
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  /** progress and warnings (stderr) */
  note: (text: string) => void;
  timeoutMs: number;
}

export function billingName(system: BillingSystem): string {
  return NAMES[system];
}

export function isBillingSystem(value: string): value is BillingSystem {
  return (BILLING_SYSTEMS as readonly string[]).includes(value);
}

/** The billing system's address (the option, else its URL variable) and credentials from the environment. */
export function billingSourceFrom(
  system: BillingSystem,
  env: Readonly<Record<string, string | undefined>>,
  urlOption: string | undefined,
): BillingSource {
  const setup = SETUP[system];
  const given = urlOption ?? nonEmpty(env[setup.urlVariable]);
  if (given === undefined) {
    throw new ConfigError(
      `where is ${NAMES[system]}? pass --${system}-url https://billing.example.com or set ${setup.urlVariable}`,
    );
  }
  const missing = setup.credentials.filter((name) => nonEmpty(env[name]) === undefined);
  if (missing.length > 0) {
    throw new ConfigError(
      `${NAMES[system]}'s API credentials come from the environment: set ${missing.join(' and ')} ` +
        '(they are never taken from the command line, where other users of the machine could read them)',
    );
  }
  const credentials: Record<string, string> = {};
  for (const name of [...setup.credentials, ...setup.optional]) {
    const value = nonEmpty(env[name]);
    if (value !== undefined) credentials[name] = value;
  }
  return { system, endpoint: endpointOf(system, given, Object.values(credentials)), credentials };
}

function endpointOf(system: BillingSystem, given: string, secrets: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ConfigError(redact(`--${system}-url ${given} is not a URL such as https://billing.example.com`, secrets));
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`--${system}-url must be an http or https address, not ${url.protocol}`);
  }
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  const endpoint = SETUP[system].endpoint;
  url.pathname = path.toLowerCase().endsWith(endpoint) ? path : `${path}${endpoint}`;
  return url;
}

export interface ImportRequest {
  /** the mapping file's text and name; undefined when none was given */
  map?: { text: string; file: string };
  /** --currency */
  currency?: string;
}

export interface ImportOutcome extends ImportedCatalogue {
  /** how many products the billing system listed */
  read: number;
}

/** The provider's catalogue as its billing system holds it, under its category map. */
export async function importCatalogue(
  source: BillingSource,
  request: ImportRequest,
  deps: BillingDeps,
): Promise<ImportOutcome> {
  // The map is read first: a mistake in it is found without calling the billing system.
  const map: CategoryMap =
    request.map === undefined ? EMPTY_CATEGORY_MAP : parseCategoryMap(request.map.text, request.map.file);
  const products = await readBillingProducts(source, deps);
  const catalogue = catalogueFrom(products, {
    map,
    mapFile: request.map?.file ?? 'the category map (--map categories.json)',
    currency: request.currency ?? null,
    system: NAMES[source.system],
  });
  return { ...catalogue, read: products.length };
}

/** Every product the billing system lists, as it describes them. */
export async function readBillingProducts(source: BillingSource, deps: BillingDeps): Promise<BillingProduct[]> {
  const secrets = Object.values(source.credentials);
  const http: BillingHttp = {
    system: NAMES[source.system],
    fetch: deps.fetch,
    timeoutMs: deps.timeoutMs,
    secrets,
    sleep: deps.sleep,
    onRetry: deps.note,
  };
  if (source.endpoint.protocol === 'http:' && !isLoopback(source.endpoint.hostname)) {
    deps.note(
      `warning: ${http.system}'s credentials go to ${displayUrl(source.endpoint)} unencrypted; use an https address\n`,
    );
  }
  try {
    if (source.system === 'whmcs') return await readWhmcs(source, http);
    if (source.system === 'blesta') return await readBlesta(source, http);
    return await readHostbill(source, http);
  } catch (error) {
    if (error instanceof BillingAnswerError) throw new BillingSystemError(redact(error.message, secrets));
    throw error;
  }
}

// ------------------------------------------------------------------------------------------------------- WHMCS

async function readWhmcs(source: BillingSource, http: BillingHttp): Promise<BillingProduct[]> {
  const form: Record<string, string> = {
    action: 'GetProducts',
    identifier: source.credentials.WHMCS_IDENTIFIER!,
    secret: source.credentials.WHMCS_SECRET!,
    responsetype: 'json',
  };
  if (source.credentials.WHMCS_ACCESS_KEY !== undefined) form.accesskey = source.credentials.WHMCS_ACCESS_KEY;
  const answer = await callBillingSystem(http, { method: 'POST', url: source.endpoint, form });
  const refusal = whmcsRefusal(answer.json);
  if (refusal !== null) throw refused(http, `GetProducts: ${refusal}`, whmcsHint(refusal));
  if (answer.json === undefined || answer.status !== 200) {
    throw unexpectedAnswer(
      http,
      source.endpoint,
      answer,
      'GetProducts\' {"result": …} (is the address your WHMCS, whose API is includes/api.php?)',
    );
  }
  return whmcsProducts(answer.json);
}

function whmcsHint(message: string): string {
  if (/authentication failed/i.test(message)) {
    return 'check WHMCS_IDENTIFIER and WHMCS_SECRET: API credentials are made under System Settings > Manage API Credentials, and their role must allow GetProducts';
  }
  if (/invalid ip/i.test(message)) {
    return "allow this machine's address under System Settings > General Settings > Security > API IP Access Restriction, or set WHMCS_ACCESS_KEY to the $api_access_key of WHMCS's configuration.php";
  }
  return '';
}

// ------------------------------------------------------------------------------------------------------ Blesta

async function readBlesta(source: BillingSource, http: BillingHttp): Promise<BillingProduct[]> {
  const user = source.credentials.BLESTA_API_USER!;
  const key = source.credentials.BLESTA_API_KEY!;
  // Blesta reads the credentials from these headers, or from Basic authentication where the web server passes it
  // on; both are sent, so either set-up works.
  const headers = {
    'BLESTA-API-USER': user,
    'BLESTA-API-KEY': key,
    authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`,
  };
  const authed: BillingHttp = { ...http, secrets: [...http.secrets, headers.authorization.slice('Basic '.length)] };
  const get = async (path: string, query: Record<string, string>, call: string): Promise<unknown> => {
    const url = new URL(`${source.endpoint.href.replace(/\/+$/, '')}/${path}`);
    url.search = new URLSearchParams(query).toString();
    const answer = await callBillingSystem(authed, { method: 'GET', url, headers });
    const refusal = blestaRefusal(answer.json);
    if (answer.status !== 200 || refusal !== null || answer.json === undefined) {
      if (refusal !== null)
        throw refused(authed, `${call}: ${refusal} (HTTP ${answer.status})`, blestaHint(answer.status));
      throw unexpectedAnswer(
        authed,
        url,
        answer,
        `${call}'s {"response": …} (is the address your Blesta, whose API is api/?)`,
      );
    }
    return answer.json;
  };

  const listed: { id: string; listed: Record<string, unknown> }[] = [];
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    if (page > MAX_PAGES)
      throw new BillingSystemError(`Blesta listed packages on more than ${MAX_PAGES} pages; nothing is synced`);
    const items = blestaPage(
      await get('packages/getList.json', { page: String(page), status: 'active' }, 'packages/getList'),
      page,
    );
    if (items.length === 0) break;
    for (const item of items) {
      if (seen.has(item.id)) {
        throw new BillingSystemError(
          `Blesta listed package ${item.id} again on page ${page}: it does not page packages/getList as documented, ` +
            'so the whole list cannot be read and nothing is synced',
        );
      }
      seen.add(item.id);
      listed.push(item);
    }
  }
  return mapLimit(listed, BLESTA_CONCURRENCY, async ({ id, listed: entry }) => {
    const detail = await get('packages/get.json', { package_id: id }, `packages/get for package ${id}`);
    const options = blestaHasOptions(detail)
      ? await get(
          'package_options/getByPackageId.json',
          { package_id: id },
          `package_options/getByPackageId for package ${id}`,
        )
      : null;
    return blestaPackage(id, entry, detail, options);
  });
}

function blestaHint(status: number): string {
  if (status === 401) return 'check BLESTA_API_USER and BLESTA_API_KEY (Settings > System > API Access)';
  if (status === 404)
    return "is the address right? Blesta's API is at its install path's api/, or index.php/api/ without .htaccess";
  if (status === 503) return 'Blesta is in maintenance mode';
  return '';
}

// ---------------------------------------------------------------------------------------------------- HostBill

async function readHostbill(source: BillingSource, http: BillingHttp): Promise<BillingProduct[]> {
  const call = async (form: Record<string, string>): Promise<unknown> => {
    const answer = await callBillingSystem(http, {
      method: 'POST',
      url: source.endpoint,
      form: { ...form, api_id: source.credentials.HOSTBILL_API_ID!, api_key: source.credentials.HOSTBILL_API_KEY! },
    });
    const refusal = hostbillRefusal(answer.json);
    if (refusal !== null) {
      throw refused(
        http,
        `${form.call}: ${refusal}`,
        "check HOSTBILL_API_ID and HOSTBILL_API_KEY, the key's allowed IP addresses, and that it may call getOrderPages, getSubCategories and getProducts (Settings > System Settings > Security settings > API Access)",
      );
    }
    if (answer.json === undefined || answer.status !== 200) {
      throw unexpectedAnswer(
        http,
        source.endpoint,
        answer,
        `${form.call}'s {"success": …} (is the address your HostBill, whose API is admin/api.php?)`,
      );
    }
    return answer.json;
  };

  const pages: HostbillOrderPage[] = [];
  const visited = new Set<string>();
  const visit = async (found: HostbillOrderPage[], depth: number, hidden: boolean) => {
    for (const page of found) {
      if (visited.has(page.id)) continue;
      visited.add(page.id);
      // A hidden order page hides what it holds.
      const effective = hidden ? { ...page, visible: false } : page;
      if (!page.holdsPages) {
        pages.push(effective);
      } else if (depth < MAX_ORDER_PAGE_DEPTH) {
        const sub = hostbillOrderPages(await call({ call: 'getSubCategories', id: page.id }), 'getSubCategories');
        await visit(sub, depth + 1, !effective.visible);
      }
    }
  };
  await visit(hostbillOrderPages(await call({ call: 'getOrderPages' }), 'getOrderPages'), 0, false);
  const products: BillingProduct[] = [];
  for (const page of pages) products.push(...hostbillProducts(await call({ call: 'getProducts', id: page.id }), page));
  return products;
}

// ----------------------------------------------------------------------------------------------------- helpers

function refused(http: BillingHttp, what: string, hint: string): BillingSystemError {
  return new BillingSystemError(redact(`${http.system} refused ${what}${hint ? `\n  ${hint}` : ''}`, http.secrets));
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** How many products a line of the report names before "and n more" (the JSON report names them all). */
const NAMED_IN_REPORT = 10;

/** What was read, what was left out, and which products state no spec or no location, for stderr. */
export function importReport(source: BillingSource, outcome: ImportOutcome): string {
  const lines = [
    `Read ${outcome.read} product${outcome.read === 1 ? '' : 's'} from ${NAMES[source.system]} at ${displayUrl(source.endpoint)}: ` +
      `${outcome.products.length} in the catalogue${outcome.currency === null ? '' : ` (prices in ${outcome.currency})`}` +
      `${outcome.leftOut.length === 0 ? '' : `, ${outcome.leftOut.length} left out`}.`,
    ...outcome.leftOut.map((l) => `  left out ${l.id} ${JSON.stringify(l.name)}: ${l.reason}`),
    ...outcome.warnings.map((w) => `  warning: ${w}`),
  ];
  const unstated = [
    { what: 'without specs', products: outcome.withoutSpecs },
    { what: 'without a location', products: outcome.withoutLocation },
  ].filter((u) => u.products.length > 0);
  for (const { what, products } of unstated) lines.push(`  ${what} (${products.length}): ${named(products)}`);
  if (unstated.length > 0) {
    lines.push(
      '  (filters by RAM, CPU, disk or country cannot find these; docs/connectors.md says where specs and locations are read)',
    );
  }
  return `${lines.join('\n')}\n`;
}

function named(products: readonly ProductLabel[]): string {
  const shown = products.slice(0, NAMED_IN_REPORT).map((p) => `${p.id} ${JSON.stringify(p.name)}`);
  if (products.length > NAMED_IN_REPORT) shown.push(`and ${products.length - NAMED_IN_REPORT} more`);
  return shown.join(', ');
}

/** The report as JSON: what `push --from --json` and `import --dry-run --json` add to the sync's answer as "import". */
export interface ImportReportJson {
  system: BillingSystem;
  read: number;
  listed: number;
  currency: string | null;
  left_out: { id: string; name: string; reason: string }[];
  without_specs: ProductLabel[];
  without_location: ProductLabel[];
  warnings: string[];
}

export function importReportJson(source: BillingSource, outcome: ImportOutcome): ImportReportJson {
  return {
    system: source.system,
    read: outcome.read,
    listed: outcome.products.length,
    currency: outcome.currency,
    left_out: outcome.leftOut.map(({ id, name, reason }) => ({ id, name, reason })),
    without_specs: outcome.withoutSpecs,
    without_location: outcome.withoutLocation,
    warnings: outcome.warnings,
  };
}
