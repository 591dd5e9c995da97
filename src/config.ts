// Every setting hostdir reads from its environment, parsed and checked once at start; the values derived from them;
// and, as fields a test may change, the values fixed in code (each a named constant beside the code that uses it).
import { isIP } from 'node:net';
import path from 'node:path';
import { isKnownCurrency } from './catalog/currency.js';
import { HEADERS_TIMEOUT_MS } from './http/app.js';
import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW_SECONDS } from './http/auth-failures.js';
import { MIN_UPLOAD_BYTES_PER_S, UPLOAD_GRACE_SECONDS } from './http/body.js';
import { RATES_REFRESH_SECONDS } from './rates-refresh.js';
import { LOCK_TIMEOUT_MS } from './store/sync.js';
import { IDEMPOTENCY_KEY_TTL_SECONDS, IDEMPOTENCY_MAX_KEYS_PER_HOST } from './sync/idempotency.js';
import { SYNC_QUEUE_LIMIT } from './sync/slots.js';
import { DRY_RUNS_PER_APPLIED_SYNC, REFUSED_PER_WINDOW } from './sync/window.js';
import { DIGEST_GAP_SECONDS, WATCH_POLL_MS } from './watches/schedule.js';
import { SITEMAP_URLS_PER_PAGE } from './web/seo.js';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  /** a direct (session) connection for the migrations when DATABASE_URL goes through a transaction pooler */
  migrationDatabaseUrl: string | null;
  /** streaming replicas the public directory reads from (DATABASE_READ_URL, comma-separated) */
  databaseReadUrls: string[];
  /** a replica further behind the primary than this is left out of the directory's reads until it catches up */
  replicaMaxLagSeconds: number;
  adminToken: string | null;
  logLevel: string;
  maxBodyBytes: number;
  maxProducts: number;
  syncMaxPerWindow: number;
  /** derived: dry runs per host per SYNC_WINDOW_SECONDS, DRY_RUNS_PER_APPLIED_SYNC × SYNC_MAX_PER_WINDOW */
  dryRunMaxPerWindow: number;
  syncWindowSeconds: number;
  /**
   * derived: refused sync requests (413, 415, 422) per host per SYNC_WINDOW_SECONDS before it gets 429,
   * REFUSED_PER_WINDOW or SYNC_MAX_PER_WINDOW if that is more
   */
  refusedMaxPerWindow: number;
  /** derived: how long a running request's claim on its Idempotency-Key lasts if nothing releases it */
  idempotencyLeaseSeconds: number;
  /** the bytes of the answers kept for finished Idempotency-Keys per host */
  idempotencyMaxBytesPerHost: number;
  dbPoolSize: number;
  /** how long a stopping server lets running requests finish */
  shutdownTimeoutMs: number;
  /** PostgreSQL statement_timeout for request queries */
  statementTimeoutMs: number;
  /** a client must have sent its whole request, body included, within this time */
  requestTimeoutMs: number;
  /** how long an idle keep-alive connection stays open */
  keepAliveTimeoutMs: number;
  /** request body bytes held in memory at once by all requests of this process; past it, 503 */
  maxBodyBytesInFlight: number;
  /** derived: of those, what one provider's requests may hold at once; past it, that provider gets 429 */
  maxBodyBytesPerHost: number;
  /** sync transactions one process runs at once; the rest wait in a queue */
  syncConcurrency: number;
  /** derived: statements the public directory runs at once per process; the rest wait their turn, then 503 */
  directoryConcurrency: number;
  /** server processes sharing the port (node:cluster); more than 1 needs DATABASE_URL */
  workers: number;
  /**
   * proxies (addresses, CIDR ranges, or loopback / linklocal / uniquelocal) whose X-Forwarded-For is believed: the
   * client's address, which the throttling of failed authentications counts by, is then the one they name
   */
  trustProxy: string[];
  /** the currency prices are shown in (converted) when a visitor picks none */
  displayCurrency: string;
  /** where the server fetches exchange rates itself (the ECB's XML or the JSON form); null: only imports */
  ratesUrl: string | null;
  /** a host whose last applied sync is older than this many days (or that never synced) is stale */
  staleAfterDays: number;
  /**
   * the directory's public address (PUBLIC_URL, e.g. https://directory.example.org), for absolute links: canonical
   * links, the sitemap, robots.txt, structured data; null: see src/http/public-url.ts
   */
  publicUrl: string | null;
  /** the SMTP server mail goes through (smtp:// or smtps://, `?from=` for the sender); null: .eml files under DATA_DIR/mail */
  smtpUrl: string | null;
  /** a provider whose domain is proved waits for the operator's approval before it is listed (REQUIRE_APPROVAL) */
  requireApproval: boolean;
  /**
   * requests to addresses others name (webhooks of watches, a provider's domain proof) may reach loopback, private
   * and link-local addresses (ALLOW_PRIVATE_TARGETS): only for a directory inside a private network
   */
  allowPrivateTargets: boolean;

  // Fixed in code, each the named constant beside the code that uses it; no variable sets them. Fields only so that a
  // test can run a server with other values.
  /** SYNC_QUEUE_LIMIT (sync/slots.ts): syncs that may wait for a free slot; beyond that a sync is answered 503 */
  syncQueueLimit: number;
  /** HEADERS_TIMEOUT_MS (http/app.ts), or REQUEST_TIMEOUT_MS if shorter: a client must have sent its headers by then */
  headersTimeoutMs: number;
  /** MIN_UPLOAD_BYTES_PER_S and UPLOAD_GRACE_SECONDS (http/body.ts): a body arriving slower is cut off with 408 */
  minUploadBytesPerS: number;
  uploadGraceMs: number;
  /** AUTH_FAILURE_LIMIT per AUTH_FAILURE_WINDOW_SECONDS (http/auth-failures.ts): then a client address gets 429 */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** IDEMPOTENCY_KEY_TTL_SECONDS (sync/idempotency.ts): how long an Idempotency-Key and its answer are kept */
  idempotencyKeyTtlSeconds: number;
  /** IDEMPOTENCY_MAX_KEYS_PER_HOST (sync/idempotency.ts): finished Idempotency-Keys kept per host */
  idempotencyMaxKeysPerHost: number;
  /** LOCK_TIMEOUT_MS (store/sync.ts): how long a sync waits for another sync of the same host before it gets 429 */
  lockTimeoutMs: number;
  /** RATES_REFRESH_SECONDS (rates-refresh.ts): how often RATES_URL is fetched */
  ratesRefreshSeconds: number;
  /** SITEMAP_URLS_PER_PAGE (web/seo.ts): URLs per sitemap page */
  sitemapUrlsPerPage: number;
  /**
   * The DNS servers a domain proof asks ("127.0.0.1:5353"), for the TXT record and the names of the fetch; empty: the
   * system's resolver. A test points it at a DNS server of its own.
   */
  domainProofDnsServers: string[];
  /** The port the domain proof fetches the well-known file from over plain http; null: https (443). For tests. */
  domainProofHttpPort: number | null;
  /** DIGEST_GAP_SECONDS and WATCH_POLL_MS (watches/schedule.ts): a watch's mail at most once per gap; due work sought */
  watchDigestGapSeconds: number;
  watchPollMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function positiveNumber(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(raw) || !(value > 0) || value > max) {
    throw new ConfigError(`${name} must be a number above 0 and at most ${max}, got "${raw}"`);
  }
  return value;
}

function flag(env: Env, name: string): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return false;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on or off (true/false, 1/0), got "${env[name]}"`);
}

function text(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const migrationDatabaseUrl = text(env, 'MIGRATION_DATABASE_URL');
  if (migrationDatabaseUrl && !(databaseUrl && /^postgres(ql)?:\/\//.test(migrationDatabaseUrl))) {
    throw new ConfigError(
      'MIGRATION_DATABASE_URL must start with postgres:// or postgresql://, and needs DATABASE_URL',
    );
  }
  const databaseReadUrls = (text(env, 'DATABASE_READ_URL') ?? '').split(/[\s,]+/).filter(Boolean);
  if (databaseReadUrls.length > 0 && !databaseUrl) {
    throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL: the embedded store has no replicas');
  }
  if (databaseReadUrls.some((url) => !/^postgres(ql)?:\/\//.test(url))) {
    throw new ConfigError(
      'DATABASE_READ_URL must be one or more postgres:// or postgresql:// URLs, separated by commas',
    );
  }
  const adminToken = text(env, 'ADMIN_TOKEN');
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long');
  }
  const maxBodyBytes = integer(env, 'MAX_BODY_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  const dbPoolSize = integer(env, 'DB_POOL_SIZE', 10, 1, 1000);
  const syncConcurrency = integer(env, 'SYNC_CONCURRENCY', 4, 1, 1000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000);
  const statementTimeoutMs = integer(env, 'STATEMENT_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const syncMaxPerWindow = integer(env, 'SYNC_MAX_PER_WINDOW', 1, 1, 1_000_000);
  const maxBodyBytesInFlight = integer(
    env,
    'MAX_BODY_BYTES_IN_FLIGHT',
    2 * maxBodyBytes,
    1024,
    64 * 1024 * 1024 * 1024,
  );
  if (maxBodyBytesInFlight < maxBodyBytes) {
    throw new ConfigError(
      'MAX_BODY_BYTES_IN_FLIGHT must be at least MAX_BODY_BYTES, or no largest body could ever pass',
    );
  }
  const trustProxy = (text(env, 'TRUST_PROXY') ?? '').split(/[\s,]+/).filter(Boolean);
  for (const entry of trustProxy) {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (
      !['loopback', 'linklocal', 'uniquelocal'].includes(entry) &&
      !(family !== 0 && validBits && rest.length === 0)
    ) {
      throw new ConfigError(
        `TRUST_PROXY must list addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal; got "${entry}"`,
      );
    }
  }
  const publicUrl = parsePublicUrl(text(env, 'PUBLIC_URL'));
  const workers = integer(env, 'WORKERS', 1, 1, 256);
  if (workers > 1 && !databaseUrl) {
    throw new ConfigError(
      `${workers} workers need DATABASE_URL: the embedded store (PGlite) can be opened by one process only; ` +
        'run one worker, or point DATABASE_URL at a PostgreSQL server',
    );
  }
  const displayCurrency = (text(env, 'DISPLAY_CURRENCY') ?? 'EUR').toUpperCase();
  if (!/^[A-Z]{3}$/.test(displayCurrency) || !isKnownCurrency(displayCurrency)) {
    throw new ConfigError(`DISPLAY_CURRENCY must be an ISO 4217 currency code, got "${displayCurrency}"`);
  }
  const smtpUrl = text(env, 'SMTP_URL');
  if (smtpUrl !== null && !isSmtpUrl(smtpUrl)) {
    throw new ConfigError(
      'SMTP_URL must be an smtp:// or smtps:// URL, such as smtps://user:password@mail.example.org:465',
    );
  }
  const ratesUrl = text(env, 'RATES_URL');
  if (ratesUrl !== null && !/^https?:\/\/[^\s]+$/.test(ratesUrl)) {
    throw new ConfigError('RATES_URL must be an http:// or https:// URL');
  }
  return {
    displayCurrency,
    ratesUrl,
    host: text(env, 'HOST') ?? '127.0.0.1',
    port: integer(env, 'PORT', 3000, 0, 65535),
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? './data'),
    databaseUrl,
    migrationDatabaseUrl,
    databaseReadUrls,
    replicaMaxLagSeconds: integer(env, 'REPLICA_MAX_LAG_SECONDS', 5, 1, 3_600),
    adminToken,
    logLevel: text(env, 'LOG_LEVEL') ?? 'info',
    maxBodyBytes,
    maxProducts: integer(env, 'MAX_PRODUCTS', 50_000, 1, 1_000_000),
    syncMaxPerWindow,
    // Dry runs and refusals follow the applied syncs an operator allows (sync/window.ts).
    dryRunMaxPerWindow: DRY_RUNS_PER_APPLIED_SYNC * syncMaxPerWindow,
    syncWindowSeconds: integer(env, 'SYNC_WINDOW_SECONDS', 300, 1, 86_400 * 30),
    idempotencyLeaseSeconds: idempotencyLeaseSeconds(requestTimeoutMs, statementTimeoutMs),
    dbPoolSize,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000),
    statementTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    maxBodyBytesInFlight,
    // Half the budget, so that one provider's uploads never hold all of it, yet always room for one largest body.
    maxBodyBytesPerHost: Math.max(maxBodyBytes, Math.floor(maxBodyBytesInFlight / 2)),
    refusedMaxPerWindow: Math.max(REFUSED_PER_WINDOW, syncMaxPerWindow),
    idempotencyMaxBytesPerHost: integer(
      env,
      'IDEMPOTENCY_MAX_BYTES_PER_HOST',
      256 * 1024 * 1024,
      1024,
      1024 * 1024 * 1024 * 1024,
    ),
    syncConcurrency,
    // The pool less the sync slots, less one kept for authentication and the operator: however many and slow the
    // visitors' reads, providers and the operator are served.
    directoryConcurrency: Math.max(1, dbPoolSize - syncConcurrency - 1),
    workers,
    trustProxy,
    staleAfterDays: positiveNumber(env, 'STALE_AFTER_DAYS', 30, 36_500),
    publicUrl,
    smtpUrl,
    requireApproval: flag(env, 'REQUIRE_APPROVAL'),
    allowPrivateTargets: flag(env, 'ALLOW_PRIVATE_TARGETS'),
    syncQueueLimit: SYNC_QUEUE_LIMIT,
    headersTimeoutMs: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
    minUploadBytesPerS: MIN_UPLOAD_BYTES_PER_S,
    uploadGraceMs: UPLOAD_GRACE_SECONDS * 1000,
    authFailureLimit: AUTH_FAILURE_LIMIT,
    authFailureWindowSeconds: AUTH_FAILURE_WINDOW_SECONDS,
    idempotencyKeyTtlSeconds: IDEMPOTENCY_KEY_TTL_SECONDS,
    idempotencyMaxKeysPerHost: IDEMPOTENCY_MAX_KEYS_PER_HOST,
    lockTimeoutMs: LOCK_TIMEOUT_MS,
    ratesRefreshSeconds: RATES_REFRESH_SECONDS,
    sitemapUrlsPerPage: SITEMAP_URLS_PER_PAGE,
    domainProofDnsServers: [],
    domainProofHttpPort: null,
    watchDigestGapSeconds: DIGEST_GAP_SECONDS,
    watchPollMs: WATCH_POLL_MS,
  };
}

/** The shortest lease of a running request's Idempotency-Key claim, whatever the timeouts. */
const IDEMPOTENCY_LEASE_MIN_SECONDS = 300;

/**
 * How long a running request's claim on its Idempotency-Key blocks the key should nothing release it. It must outlast
 * the request, or a retry would run beside it: its body arrives within REQUEST_TIMEOUT_MS; then come validation, the
 * wait for the host's lock and the sync's transaction, a few bulk statements each ended by STATEMENT_TIMEOUT_MS, for
 * which two statement timeouts leave room. The lease is only the last resort: a request that is answered keeps its
 * answer under the key or releases it, and a process that dies leaves claims that are free again once its heartbeat
 * stops (store/instances.ts).
 */
function idempotencyLeaseSeconds(requestTimeoutMs: number, statementTimeoutMs: number): number {
  return Math.max(IDEMPOTENCY_LEASE_MIN_SECONDS, Math.ceil((requestTimeoutMs + 2 * statementTimeoutMs) / 1000));
}

function isSmtpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An http(s) origin, with no path, query or fragment: "https://directory.example.org" (a trailing slash is dropped). */
function parsePublicUrl(raw: string | null): string | null {
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  if (
    !['http:', 'https:'].includes(url.protocol) ||
    url.pathname !== '/' ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new ConfigError(
      `PUBLIC_URL must be an http:// or https:// address with no path, such as https://directory.example.org; got "${raw}"`,
    );
  }
  return url.origin;
}
