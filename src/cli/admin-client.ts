// Typed calls to the server's admin API (/admin/v1), and where to find that API.
import { join } from 'node:path';
import type { ApiKey, IssuedApiKey } from '../store/api-keys.js';
import type { Category } from '../store/categories.js';
import type { Host as StoredHost, HostDetails } from '../store/hosts.js';
import type { SyncRunRecord } from '../store/sync-runs.js';
import type { ProfileChange } from '../catalog/host-profile.js';
import type { RatesImport, StoredRate } from '../store/rates.js';

// The answers of the admin API, as the server's store gives them (less the host's internal id).
// Listings and details also say whether the host is stale; a host just created or changed comes without it.
export type Host = Omit<StoredHost, 'id'> & { stale?: boolean };
export type HostDetail = Omit<HostDetails, 'id'> & { stale?: boolean };
export type IssuedKey = IssuedApiKey;
export type SyncRun = SyncRunRecord;
export type { ApiKey, Category };

export type ProductStatus = 'active' | 'inactive';
export type { ProfileChange, RatesImport, StoredRate };
export type ProductStatusFilter = ProductStatus | 'all';

/** The fields the command line shows; the API sends more, and `--json` passes them on untouched. */
export interface Product {
  id: string;
  external_id: string;
  name: string;
  category: string;
  /** null: no price given (price on request) */
  price: number | null;
  currency: string;
  status: ProductStatus;
  updated_at: string;
}

export interface ProblemEntry {
  /** a JSON Pointer into the body, or the name of the query parameter at fault */
  location: string;
  code: string;
  detail: string;
}

/** The server answered, and said no (any non-2xx answer). */
export class AdminApiError extends Error {
  override readonly name = 'AdminApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: readonly ProblemEntry[] = [],
  ) {
    super(`${detail} (${code}, HTTP ${status})`);
  }
}

/** No answer at all: nothing listening, DNS failure, timeout, connection cut. */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach hostdir at ${url}: ${reason}`);
  }
}

/** The command line is missing what it needs to call the server (a token, a usable URL). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DEFAULT_URL = 'http://127.0.0.1:3000';

export interface Connection {
  baseUrl: string;
  token: string;
}

/**
 * Where the server is and which admin token to present. Pure apart from `readFile`, which
 * answers undefined when the file does not exist.
 */
export function resolveConnection(
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string | undefined,
  urlOption?: string,
): Connection {
  return {
    baseUrl: resolveBaseUrl(urlOption ?? nonEmpty(env.HOSTDIR_URL) ?? DEFAULT_URL),
    token: resolveToken(env, readFile),
  };
}

export function resolveBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`not a URL: ${JSON.stringify(raw)} (set HOSTDIR_URL or --url, e.g. ${DEFAULT_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`the server URL must be http or https, got ${JSON.stringify(raw)}`);
  }
  // Kept as a prefix so that a server mounted below a path (https://example.com/dir) still works.
  return url.href.replace(/\/+$/, '');
}

function resolveToken(
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string | undefined,
): string {
  const fromEnv = nonEmpty(env.ADMIN_TOKEN?.trim());
  if (fromEnv !== undefined) return fromEnv;
  const path = join(nonEmpty(env.DATA_DIR) ?? './data', 'admin-token');
  let contents: string | undefined;
  try {
    contents = readFile(path);
  } catch (error) {
    throw new ConfigError(
      `cannot read the admin token from ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const fromFile = nonEmpty(contents?.trim());
  if (fromFile !== undefined) return fromFile;
  throw new ConfigError(
    `no admin token: set ADMIN_TOKEN (export ADMIN_TOKEN=…), or point DATA_DIR at the server's data directory so that ${path} can be read`,
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

// Long enough for a big product listing on a slow link, short enough that a wedged server is reported.
const REQUEST_TIMEOUT_MS = 30_000;

type Query = Record<string, string | number | undefined>;

/** A host that proved its domain and waits for the operator (REQUIRE_APPROVAL). */
export interface PendingHost {
  slug: string;
  name: string;
  domain: string;
  verified_at: string;
}

/** One entry of a host's audit record. */
export interface AuditEvent {
  at: string;
  actor: string;
  action: string;
  detail: string | null;
}

export class AdminClient {
  constructor(
    private readonly connection: Connection,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  createHost(input: { name: string; slug?: string; default_currency?: string }) {
    return this.request<{ host: Host; api_key: IssuedKey }>('POST', '/hosts', {}, input);
  }
  listHosts() {
    return this.request<{ hosts: Host[] }>('GET', '/hosts');
  }
  showHost(slug: string) {
    return this.request<{ host: HostDetail }>('GET', `/hosts/${segment(slug)}`);
  }
  suspendHost(slug: string) {
    return this.request<{ host: Host }>('POST', `/hosts/${segment(slug)}/suspend`);
  }
  activateHost(slug: string) {
    return this.request<{ host: Host }>('POST', `/hosts/${segment(slug)}/activate`);
  }
  listPendingHosts() {
    return this.request<{ hosts: PendingHost[] }>('GET', '/approvals');
  }
  decideHost(slug: string, decision: 'approve' | 'reject') {
    return this.request<{ host: { slug: string; status: string } }>('POST', `/hosts/${segment(slug)}/${decision}`);
  }
  hostAudit(slug: string) {
    return this.request<{ events: AuditEvent[] }>('GET', `/hosts/${segment(slug)}/audit`);
  }
  /** Fields left out are kept; null clears one. */
  updateHost(slug: string, change: ProfileChange) {
    return this.request<{ host: Host }>('PATCH', `/hosts/${segment(slug)}`, {}, change);
  }

  /** A rates file as read: the ECB's XML is sent as XML, anything else as the JSON form. */
  importRates(text: string, source: string | undefined) {
    const xml = text
      .replace(/^\uFEFF/, '')
      .trimStart()
      .startsWith('<');
    return this.request<{ import: RatesImport }>('POST', '/rates', { source }, undefined, {
      type: xml ? 'application/xml' : 'application/json',
      text,
    });
  }
  listRates(query: { currency?: string; limit?: number }) {
    return this.request<{ base: string; rates: StoredRate[] }>('GET', '/rates', query);
  }

  createKey(slug: string) {
    return this.request<{ api_key: IssuedKey }>('POST', `/hosts/${segment(slug)}/keys`);
  }
  listKeys(slug: string) {
    return this.request<{ keys: ApiKey[] }>('GET', `/hosts/${segment(slug)}/keys`);
  }
  revokeKey(keyId: string) {
    return this.request<{ api_key: ApiKey }>('POST', `/keys/${segment(keyId)}/revoke`);
  }

  listProducts(slug: string, query: { status?: ProductStatusFilter; limit?: number; cursor?: string }) {
    return this.request<{ products: Product[]; next_cursor: string | null }>(
      'GET',
      `/hosts/${segment(slug)}/products`,
      query,
    );
  }
  listSyncs(slug: string, query: { limit?: number; cursor?: string }) {
    return this.request<{ runs: SyncRun[]; next_cursor: string | null }>('GET', `/hosts/${segment(slug)}/syncs`, query);
  }

  listCategories() {
    return this.request<{ categories: Category[] }>('GET', '/categories');
  }
  addCategory(category: Category) {
    return this.request<{ category: Category }>('POST', '/categories', {}, category);
  }

  private async request<T>(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    query: Query = {},
    body?: unknown,
    raw?: { type: string; text: string },
  ): Promise<T> {
    const url = new URL(`${this.connection.baseUrl}/admin/v1${path}`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.connection.token}`,
      accept: 'application/json, application/problem+json',
    };
    // A bodiless POST carries no content-type: Fastify rejects an empty body declared as JSON.
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (raw !== undefined) headers['content-type'] = raw.type;

    let status: number;
    let text: string;
    try {
      const response = await this.fetchFn(url, {
        method,
        headers,
        body: raw !== undefined ? raw.text : body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw new UnreachableError(this.connection.baseUrl, describeFailure(error));
    }

    const parsed = parseJson(text);
    if (status < 200 || status > 299) throw problemFrom(status, parsed);
    if (parsed === undefined) {
      throw new AdminApiError(
        status,
        'INVALID_RESPONSE',
        `the server's answer to ${method} ${url.pathname} is not JSON`,
      );
    }
    return parsed as T;
  }
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads an RFC 9457 problem; anything else (a proxy's HTML page, say) still becomes an error with the status. */
export function problemFrom(status: number, body: unknown): AdminApiError {
  const problem = isRecord(body) ? body : {};
  const code = typeof problem.code === 'string' ? problem.code : `HTTP_${status}`;
  const detail =
    typeof problem.detail === 'string'
      ? problem.detail
      : typeof problem.title === 'string'
        ? problem.title
        : 'the server refused the request';
  const errors = Array.isArray(problem.errors)
    ? problem.errors.filter(isRecord).map((entry) => ({
        location: String(entry.pointer ?? entry.parameter ?? ''),
        code: String(entry.code ?? ''),
        detail: String(entry.detail ?? ''),
      }))
    : [];
  return new AdminApiError(status, code, detail, errors);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** undici hides the useful part ("connect ECONNREFUSED 127.0.0.1:3000") in `cause`. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause: unknown = error.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    // Connecting to "localhost" tries ::1 and 127.0.0.1 and fails with an AggregateError whose message is empty.
    return cause.message || (typeof code === 'string' ? code : error.message);
  }
  return error.message;
}
