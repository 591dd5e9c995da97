// A concurrency soak of the sync endpoint (contract sections 3, 6 and 7): two servers on one PostgreSQL database
// (each with its own pool, slots and instance, in this process so that their caps can be set small), a few dozen clients for SOAK_SECONDS (60 unless set) sending, for four providers, valid catalogues,
// invalid, oversized and mistyped bodies, dry runs, fresh, reused and forgotten Idempotency-Keys, and reading the
// public directory meanwhile. Afterwards it holds the answers and the database to the contract: no 5xx and no lost
// connection; every answer one the contract allows for its request; every replay the answer first given; the
// windows of applied syncs and dry runs, the budget of refusals and the caps on kept Idempotency-Key answers exact;
// and each provider's listing exactly the catalogue of its last applied sync.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, type Onboarded } from '../support/api.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { createTestDatabase, startInProcessServer, type ServerUnderTest } from '../support/server.js';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 60);

// Small enough that every window and cap is reached many times within the soak.
const WINDOW_SECONDS = 10;
const SYNC_MAX_PER_WINDOW = 3;
/** derived, as config.ts does: ten per applied sync */
const DRY_RUN_MAX_PER_WINDOW = 10 * SYNC_MAX_PER_WINDOW;
/** fixed in code or derived (60 per window, 1 000 keys), set smaller here in the servers' Config */
const REFUSED_MAX_PER_WINDOW = 10;
const IDEMPOTENCY_MAX_KEYS_PER_HOST = 16;
const IDEMPOTENCY_MAX_BYTES_PER_HOST = 12 * 1024;
const MAX_BODY_BYTES = 64 * 1024;

const SYNC = '/api/v1/sync/products';
/**
 * Each provider's products per catalogue, clients at once and share of refused bodies (invalid, oversized, mistyped).
 * Smaller answers reach the count of kept keys first, the largest their bytes. The busiest provider seldom uses up its
 * budget of refusals, so that its keyed requests claim and keep answers all the time, racing one another; the others
 * use theirs up again and again.
 */
const PROVIDER_SHAPES = [
  { products: 1, clients: 5, refused: 0.3 },
  { products: 3, clients: 5, refused: 0.3 },
  { products: 6, clients: 5, refused: 0.3 },
  { products: 12, clients: 20, refused: 0.1 },
];
const PUBLIC_READERS = 4;
/** A request not answered by then counts as lost. */
const ANSWER_DEADLINE_MS = 60_000;
/**
 * The refusals and kept keys are read this often while the clients run: a refusal row lives a window at least, so
 * every one is seen; a kept answer past a cap may live only until the next request's claim, so look often.
 */
const SAMPLE_EVERY_MS = 50;

type Product = Record<string, unknown>;

/** What a request sends as its body; a request is identified (as its Idempotency-Key fingerprint is) by body and dry run. */
type BodyKind =
  | 'catalogue-0'
  | 'catalogue-1'
  | 'catalogue-2'
  | 'negative-price'
  | 'no-products'
  | 'not-json'
  | 'oversized'
  | 'text-plain';
const CATALOGUE_KINDS: BodyKind[] = ['catalogue-0', 'catalogue-1', 'catalogue-2'];
const REFUSED_KINDS: BodyKind[] = ['negative-price', 'no-products', 'not-json', 'oversized', 'text-plain'];

interface Provider {
  index: number;
  clients: number;
  /** the share of its sync requests whose body is refused */
  refused: number;
  host: Onboarded;
  catalogues: Product[][];
  bodies: Record<BodyKind, string>;
  /** every Idempotency-Key its clients sent, with the request it was first sent with */
  keys: { key: string; body: BodyKind; dryRun: boolean }[];
  /** product ids its syncs answered, for the public reads */
  productIds: string[];
}

type KeyUse = 'none' | 'fresh' | 'reused';

interface Exchange {
  provider: number | null;
  method: string;
  path: string;
  body: BodyKind | null;
  dryRun: boolean;
  key: string | null;
  keyUse: KeyUse;
  startedAt: number;
  endedAt: number;
  status: number;
  code: string | null;
  replayed: boolean;
  /** the RateLimit-Policy's name of a 429: sync, dry-run, refused, or none */
  policy: string | null;
  text: string;
  json: any;
  /** why the request got no answer, or why its answer is not one the OpenAPI document describes */
  failure: string | null;
}

/** The three catalogues a provider sends: overlapping products, each catalogue with its own names and prices. */
function cataloguesOf(size: number): Product[][] {
  return [0, 1, 2].map((c) =>
    Array.from({ length: size }, (_, i) => {
      const n = c === 1 ? i + 1 : i;
      return {
        external_id: `plan-${n}`,
        name: `Plan ${n} of catalogue ${c}`,
        category: 'vps_cloud',
        price: 10 * (c + 1) + n,
        currency: 'USD',
        description: `Catalogue ${c}, plan ${n}`,
        features: [`catalogue ${c}`],
      };
    }),
  );
}

function bodiesOf(catalogues: Product[][]): Record<BodyKind, string> {
  const products = (c: number) => JSON.stringify({ products: catalogues[c] });
  return {
    'catalogue-0': products(0),
    'catalogue-1': products(1),
    'catalogue-2': products(2),
    'negative-price': JSON.stringify({ products: [{ ...catalogues[0]![0], price: -1 }] }),
    'no-products': JSON.stringify({ products: [] }),
    'not-json': '{"products": [',
    oversized: JSON.stringify({ products: [{ ...catalogues[0]![0], description: 'x'.repeat(MAX_BODY_BYTES) }] }),
    'text-plain': products(0),
  };
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** One request over fetch, its answer read whole and held to the server's OpenAPI document. */
async function exchange(
  server: ServerUnderTest,
  request: Pick<Exchange, 'provider' | 'method' | 'path' | 'body' | 'dryRun' | 'key' | 'keyUse'> & {
    headers?: Record<string, string>;
    payload?: string;
  },
): Promise<Exchange> {
  const { headers, payload, ...identity } = request;
  const startedAt = Date.now();
  const record: Exchange = {
    ...identity,
    startedAt,
    endedAt: startedAt,
    status: 0,
    code: null,
    replayed: false,
    policy: null,
    text: '',
    json: undefined,
    failure: null,
  };
  try {
    const response = await fetch(`${server.url}${request.path}`, {
      method: request.method,
      headers,
      body: payload,
      signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
    });
    record.text = await response.text();
    record.endedAt = Date.now();
    record.status = response.status;
    record.replayed = response.headers.get('idempotent-replayed') === 'true';
    record.policy =
      response.status === 429
        ? (/^"([^"]+)"/.exec(response.headers.get('ratelimit-policy') ?? '')?.[1] ?? 'none')
        : null;
    try {
      record.json = JSON.parse(record.text);
      record.code = typeof record.json?.code === 'string' ? record.json.code : null;
    } catch {
      record.json = undefined;
    }
    await checkAgainstDocument(server.url, request.method, request.path, {
      status: response.status,
      headers: response.headers,
      body: record.json,
      text: record.text,
    });
  } catch (error) {
    record.endedAt = Date.now();
    record.failure =
      error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ''}` : String(error);
  }
  return record;
}

/** A GET by a visitor, or by a provider with its key. */
function read(server: ServerUnderTest, path: string, provider: Provider | null = null): Promise<Exchange> {
  const headers = provider ? { authorization: `Bearer ${provider.host.key}` } : undefined;
  return exchange(server, {
    provider: provider?.index ?? null,
    method: 'GET',
    path,
    body: null,
    dryRun: false,
    key: null,
    keyUse: 'none',
    headers,
  });
}

/** The key a sync request carries: none, one never sent before, or one of the provider's earlier ones. */
function chooseKey(
  provider: Provider,
  fresh: () => string,
): { use: KeyUse; key: string | null; retry?: { body: BodyKind; dryRun: boolean }; otherDryRun?: boolean } {
  const roll = Math.random();
  if (roll < 0.1 || (roll >= 0.75 && provider.keys.length === 0)) return { use: 'none', key: null };
  if (roll < 0.75) return { use: 'fresh', key: fresh() };
  // Recent keys are mostly still kept (a retry is replayed); older ones are mostly forgotten (a new request).
  const earlier = Math.random() < 0.5 ? pick(provider.keys.slice(-5)) : pick(provider.keys);
  // A retry sends the request the key was first sent with; a reuse sends another (the other dry-run flag at least).
  return Math.random() < 0.7
    ? { use: 'reused', key: earlier.key, retry: { body: earlier.body, dryRun: earlier.dryRun } }
    : { use: 'reused', key: earlier.key, otherDryRun: !earlier.dryRun };
}

/** One client of a provider: a sync of some kind, or a read of its own listing, again and again until the deadline. */
async function providerClient(
  provider: Provider,
  servers: ServerUnderTest[],
  client: number,
  deadline: number,
  log: Exchange[],
): Promise<void> {
  let sent = 0;
  const fresh = () => `soak-${provider.index}-${client}-${sent}`;
  while (Date.now() < deadline) {
    sent++;
    const server = servers[sent % servers.length]!;
    if (Math.random() < 0.05) {
      const path = pick(['/api/v1/products?status=active&limit=1000', '/api/v1/sync/runs?limit=20']);
      log.push(await read(server, path, provider));
      continue;
    }
    let body = Math.random() < provider.refused ? pick(REFUSED_KINDS) : pick(CATALOGUE_KINDS);
    let dryRun = Math.random() < 0.5;
    const key = chooseKey(provider, fresh);
    if (key.retry) ({ body, dryRun } = key.retry);
    if (key.otherDryRun !== undefined) dryRun = key.otherDryRun;
    const headers: Record<string, string> = {
      authorization: `Bearer ${provider.host.key}`,
      'content-type': body === 'text-plain' ? 'text/plain' : 'application/json',
      ...(key.key ? { 'idempotency-key': key.key } : {}),
    };
    const path = dryRun ? `${SYNC}?dry_run=true` : SYNC;
    const answer = await exchange(server, {
      provider: provider.index,
      method: 'POST',
      path,
      body,
      dryRun,
      key: key.key,
      keyUse: key.use,
      headers,
      payload: provider.bodies[body],
    });
    log.push(answer);
    // Only now may other clients retry it: a fresh key is never in use by another request.
    if (key.use === 'fresh') provider.keys.push({ key: key.key!, body, dryRun });
    if (answer.status === 200) provider.productIds.push(...answer.json.products.map((p: { id: string }) => p.id));
  }
}

/** A visitor of the directory: its API and its pages, about the providers and the products answered so far. */
async function publicReader(
  providers: Provider[],
  servers: ServerUnderTest[],
  reader: number,
  deadline: number,
  log: Exchange[],
): Promise<void> {
  let sent = 0;
  while (Date.now() < deadline) {
    sent++;
    const server = servers[(sent + reader) % servers.length]!;
    const provider = pick(providers);
    const slug = provider.host.slug;
    const productId = pick(provider.productIds.slice(-20)) ?? 'prd_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const path = pick([
      '/api/v1/directory/hosts',
      `/api/v1/directory/hosts/${slug}`,
      '/api/v1/directory/products?category=vps_cloud&limit=20',
      '/api/v1/directory/products?q=plan&count=true',
      `/api/v1/directory/products/${productId}`,
      '/api/v1/categories',
      '/',
      '/hosts',
      `/hosts/${slug}`,
      '/categories/vps_cloud',
      '/search?q=catalogue',
      `/products/${productId}`,
    ]);
    log.push(await read(server, path));
  }
}

/** Why an answer is not one the contract allows for its request; null when it is. */
function disallowed(x: Exchange, provider: Provider | null): string | null {
  if (x.failure !== null) return x.failure;
  if (x.method === 'GET') {
    // A product or host named a moment ago may have left the listing since; the lists themselves always answer.
    const mayBeGone = /\/products\/prd_|\/hosts\/[a-z]/.test(x.path);
    return x.status === 200 || (x.status === 404 && mayBeGone) ? null : `GET answered ${x.status}`;
  }
  const problem = x.code ?? 'no code';
  if (x.status === 429) return problem === 'RATE_LIMITED' ? null : `429 with ${problem}`;
  if (x.keyUse === 'fresh' && (x.replayed || x.status === 409 || problem === 'IDEMPOTENCY_KEY_REUSED')) {
    return `a key never sent before answered ${x.status} ${problem}${x.replayed ? ' (replayed)' : ''}`;
  }
  if (x.status === 409) {
    return x.keyUse === 'reused' && problem === 'IDEMPOTENCY_KEY_IN_USE' ? null : `409 with ${problem}`;
  }
  if (x.status === 422 && problem === 'IDEMPOTENCY_KEY_REUSED') {
    return x.keyUse === 'reused' && !['oversized', 'text-plain'].includes(x.body!)
      ? null
      : `IDEMPOTENCY_KEY_REUSED for a ${x.keyUse} key`;
  }
  switch (x.body!) {
    case 'catalogue-0':
    case 'catalogue-1':
    case 'catalogue-2': {
      if (x.status !== 200) return `a valid catalogue answered ${x.status} ${problem}`;
      const sent = provider!.catalogues[Number(x.body.slice(-1))]!.map((p) => p.external_id);
      const answered = (x.json.products as { external_id: string }[]).map((p) => p.external_id);
      if (
        x.json.dry_run !== x.dryRun ||
        x.json.host !== provider!.host.slug ||
        JSON.stringify(answered) !== JSON.stringify(sent)
      ) {
        return 'a 200 that is not the plan of the catalogue sent';
      }
      return null;
    }
    case 'negative-price':
    case 'no-products':
    case 'not-json':
      return x.status === 422 && problem === 'VALIDATION_FAILED'
        ? null
        : `an invalid catalogue answered ${x.status} ${problem}`;
    case 'oversized':
      return x.status === 413 && problem === 'PAYLOAD_TOO_LARGE'
        ? null
        : `an oversized body answered ${x.status} ${problem}`;
    case 'text-plain':
      return x.status === 415 && problem === 'UNSUPPORTED_MEDIA_TYPE'
        ? null
        : `a text/plain body answered ${x.status} ${problem}`;
  }
}

/**
 * Reads, until stopped, every refusal row (each lives a window at least, so none is missed) and how many answers, of
 * how many bytes, each provider's finished Idempotency-Keys keep.
 */
function watch(server: ServerUnderTest, hostOf: Map<number, Provider>) {
  const refusalRows = new Map<string, { provider: number; at: number }>();
  const keptKeys: { provider: number; keys: number; bytes: number }[] = [];
  const sample = async () => {
    const refusals = await server.sql<{ id: string; host_id: string; at: string }>(
      `SELECT id::text, host_id::text, (extract(epoch FROM refused_at) * 1e6)::bigint::text AS at FROM sync_refusals`,
    );
    for (const row of refusals) {
      refusalRows.set(`${row.host_id}/${row.id}`, {
        provider: hostOf.get(Number(row.host_id))!.index,
        at: Number(row.at),
      });
    }
    const kept = await server.sql<{ host_id: string; keys: number; bytes: string }>(
      `SELECT host_id::text, count(*)::int AS keys, coalesce(sum(octet_length(response_body)), 0)::text AS bytes
       FROM idempotency_keys WHERE status = 'done' GROUP BY host_id`,
    );
    for (const row of kept)
      keptKeys.push({ provider: hostOf.get(Number(row.host_id))!.index, keys: row.keys, bytes: Number(row.bytes) });
  };
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
    }
  })();
  return {
    async stop() {
      watching = false;
      await watcher;
      await sample();
      return { refusalRows, keptKeys };
    },
  };
}

/** The most of `times` (µs, sorted) that fall in one window of `seconds`, (t - seconds, t]. */
function busiestWindow(times: number[], seconds: number): number {
  let busiest = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[first]! <= times[last]! - seconds * 1e6) first++;
    busiest = Math.max(busiest, last - first + 1);
  }
  return busiest;
}

/** What the soak saw: every exchange, and what the database held for each provider meanwhile and afterwards. */
interface Observed {
  log: Exchange[];
  refusalRows: Map<string, { provider: number; at: number }>;
  keptKeys: { provider: number; keys: number; bytes: number }[];
  runs: { id: string; host_id: string; dry_run: boolean; at: string }[];
}

/** One provider's part of what was observed. */
interface Seen {
  provider: Provider;
  name: string;
  hostId: number;
  /** its sync requests */
  syncs: Exchange[];
  /** its runs as recorded, oldest first */
  runs: Observed['runs'];
  /** its syncs answered 200 afresh (not replayed) */
  applied: Exchange[];
  /** the answers kept for its Idempotency-Keys, as first given */
  keptAnswers: Exchange[];
  /** its refusals (413, 415, 422) answered afresh, and the times (µs) of the refusals recorded */
  refusedAnswers: Exchange[];
  refusalTimes: number[];
}

function seenOf(observed: Observed, provider: Provider, hostId: number): Seen {
  const syncs = observed.log.filter((x) => x.provider === provider.index && x.method === 'POST');
  return {
    provider,
    name: `provider ${provider.index} (${provider.host.slug})`,
    hostId,
    syncs,
    runs: observed.runs.filter((run) => Number(run.host_id) === hostId),
    applied: syncs.filter((x) => x.status === 200 && !x.replayed),
    keptAnswers: syncs.filter(
      (x) => x.key !== null && !x.replayed && (x.status === 200 || x.code === 'VALIDATION_FAILED'),
    ),
    refusedAnswers: syncs.filter((x) => [413, 415, 422].includes(x.status) && !x.replayed),
    refusalTimes: [...observed.refusalRows.values()]
      .filter((row) => row.provider === provider.index)
      .map((row) => row.at)
      .sort((a, b) => a - b),
  };
}

/** Each sync answered 200 afresh is one run, and each run was answered: nothing applied twice, or unseen. */
function expectRunsAnswered(seen: Seen): void {
  expect
    .soft(seen.runs.map((run) => run.id).sort(), `${seen.name}: the runs recorded are the syncs answered 200`)
    .toEqual(seen.applied.map((x) => x.json.sync_id as string).sort());
}

/** The windows of applied syncs and of dry runs, in any WINDOW_SECONDS by the database's clock; their busiest. */
function expectWindows(seen: Seen): { applied: number; dryRuns: number } {
  const busiest = (dryRun: boolean) =>
    busiestWindow(
      seen.runs.filter((run) => run.dry_run === dryRun).map((run) => Number(run.at)),
      WINDOW_SECONDS,
    );
  const [applied, dryRuns] = [busiest(false), busiest(true)];
  expect.soft(applied, `${seen.name}: applied syncs in one window`).toBeLessThanOrEqual(SYNC_MAX_PER_WINDOW);
  expect.soft(dryRuns, `${seen.name}: dry runs in one window`).toBeLessThanOrEqual(DRY_RUN_MAX_PER_WINDOW);
  return { applied, dryRuns };
}

/**
 * The budget of refusals (413, 415 and 422, replays aside). The refusals recorded never pass it in any window. And
 * each refusal answered was let in, before its body was read, while fewer than the budget were recorded in the window
 * before it: in the window ending as it started there are at most budget - 1 rows, and one more for each refused
 * request still in flight then (its row may have been written after this one looked). Refusals answered beyond the
 * budget by requests already past that look are allowed: the contract turns a host away before its body is read.
 */
function expectRefusalBudget(seen: Seen): { recorded: number; answered: number } {
  const recorded = busiestWindow(seen.refusalTimes, WINDOW_SECONDS);
  expect.soft(recorded, `${seen.name}: refusals recorded in one window`).toBeLessThanOrEqual(REFUSED_MAX_PER_WINDOW);
  const letInPastBudget = seen.refusedAnswers.flatMap((x) => {
    // In µs, as the rows are; the answer's end is known to the millisecond below, so the window starts 1 ms later.
    const [from, to] = [(x.endedAt + 1 - WINDOW_SECONDS * 1000) * 1000, x.startedAt * 1000];
    const before = seen.refusalTimes.filter((at) => at > from && at < to).length;
    const inFlight = seen.refusedAnswers.filter(
      (y) => y !== x && y.startedAt <= x.startedAt && y.endedAt >= x.startedAt,
    ).length;
    return before > REFUSED_MAX_PER_WINDOW - 1 + inFlight
      ? [`${x.status} at ${new Date(x.startedAt).toISOString()}: ${before} recorded before it, ${inFlight} in flight`]
      : [];
  });
  expect.soft(letInPastBudget, `${seen.name}: refusals let in although the budget was spent`).toEqual([]);
  const answered = busiestWindow(
    seen.refusedAnswers.map((x) => x.startedAt * 1000),
    WINDOW_SECONDS,
  );
  return { recorded, answered };
}

/** The finished Idempotency-Keys kept and the bytes of their answers, whenever they were looked at; the most of each. */
function expectKeptCaps(seen: Seen, keptKeys: Observed['keptKeys']): { keys: number; bytes: number } {
  const kept = keptKeys.filter((k) => k.provider === seen.provider.index);
  const keys = Math.max(0, ...kept.map((k) => k.keys));
  const bytes = Math.max(0, ...kept.map((k) => k.bytes));
  expect.soft(keys, `${seen.name}: finished Idempotency-Keys kept`).toBeLessThanOrEqual(IDEMPOTENCY_MAX_KEYS_PER_HOST);
  expect
    .soft(bytes, `${seen.name}: bytes of the answers kept for Idempotency-Keys`)
    .toBeLessThanOrEqual(IDEMPOTENCY_MAX_BYTES_PER_HOST);
  return { keys, bytes };
}

/**
 * A replay is, byte for byte, the answer given afresh to a request with its key and the same body and dry-run flag;
 * a key refused as reused was kept for a request with another.
 */
function expectReplays(seen: Seen): void {
  const sameRequest = (a: Exchange, b: Exchange) => a.key === b.key && a.body === b.body && a.dryRun === b.dryRun;
  const badReplays = seen.syncs.filter(
    (x) => x.replayed && !seen.keptAnswers.some((k) => sameRequest(k, x) && k.text === x.text),
  );
  expect
    .soft(
      badReplays.map((x) => `${x.key} ${x.body} → ${x.text.slice(0, 200)}`),
      `${seen.name}: replays of no answer given`,
    )
    .toEqual([]);
  const badReuses = seen.syncs.filter(
    (x) => x.code === 'IDEMPOTENCY_KEY_REUSED' && !seen.keptAnswers.some((k) => k.key === x.key && !sameRequest(k, x)),
  );
  expect
    .soft(
      badReuses.map((x) => `${x.key} ${x.body}`),
      `${seen.name}: keys refused as reused that no other request kept`,
    )
    .toEqual([]);
}

const sortedById = (products: Product[]) =>
  [...products].sort((a, b) => String(a.external_id).localeCompare(String(b.external_id)));

/** The provider's active products are exactly the catalogue of its last applied sync, with its content; its kind. */
async function expectListing(seen: Seen, server: ServerUnderTest): Promise<BodyKind | null> {
  const lastApplied = seen.runs.filter((run) => !run.dry_run).at(-1);
  const lastAnswer = lastApplied && seen.applied.find((x) => x.json.sync_id === lastApplied.id);
  expect.soft(lastAnswer, `${seen.name}: the last sync applied was answered`).toBeDefined();
  if (!lastAnswer) return null;
  const expected = sortedById(seen.provider.catalogues[Number(lastAnswer.body!.slice(-1))]!);
  const active = await server.sql<{ external_id: string }>(
    `SELECT external_id FROM products WHERE host_id = $1 AND status = 'active'`,
    [seen.hostId],
  );
  expect
    .soft(active.map((row) => row.external_id).sort(), `${seen.name}: active products`)
    .toEqual(expected.map((p) => p.external_id).sort());
  const listing = await read(server, '/api/v1/products?status=active&limit=1000', seen.provider);
  expect.soft(listing.status, listing.text).toBe(200);
  // The fields the catalogue gives, as the provider's listing shows them (the catalogue is in normalized form).
  const listed = sortedById((listing.json?.products ?? []) as Product[]).map((p) =>
    Object.fromEntries(Object.keys(expected[0]!).map((field) => [field, p[field]])),
  );
  expect.soft(listed, `${seen.name}: the listing's content`).toEqual(expected);
  return lastAnswer.body;
}

/** Answers counted by status, problem code, rate-limit policy and replay, for the report. */
const byStatus = (log: Exchange[]) => {
  const counts: Record<string, number> = {};
  for (const x of log) {
    const label =
      x.failure !== null && x.status === 0
        ? 'no answer'
        : `${x.status}${x.code ? ` ${x.code}` : ''}${x.policy ? ` (${x.policy})` : ''}${x.replayed ? ' replayed' : ''}`;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
};

const CLIENTS = PROVIDER_SHAPES.reduce((sum, shape) => sum + shape.clients, PUBLIC_READERS);

describe(`a ${SOAK_SECONDS} s soak: two servers, ${PROVIDER_SHAPES.length} providers, ${CLIENTS} clients`, () => {
  let database: { url: string; drop(): Promise<void> };
  const servers: ServerUnderTest[] = [];
  let providers: Provider[] = [];
  /** providers by host id */
  const hostOf = new Map<number, Provider>();

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      LOG_LEVEL: 'warn',
      DB_POOL_SIZE: '16',
      SYNC_WINDOW_SECONDS: String(WINDOW_SECONDS),
      SYNC_MAX_PER_WINDOW: String(SYNC_MAX_PER_WINDOW),
      IDEMPOTENCY_MAX_BYTES_PER_HOST: String(IDEMPOTENCY_MAX_BYTES_PER_HOST),
      MAX_BODY_BYTES: String(MAX_BODY_BYTES),
      // Body memory is not what this soak is about: a 503 or 429 for it would hide what is.
      MAX_BODY_BYTES_IN_FLIGHT: String(64 * 1024 * 1024),
    };
    const config = {
      refusedMaxPerWindow: REFUSED_MAX_PER_WINDOW,
      idempotencyMaxKeysPerHost: IDEMPOTENCY_MAX_KEYS_PER_HOST,
    };
    servers.push(await startInProcessServer('postgres', { databaseUrl: database.url, env, config }));
    servers.push(await startInProcessServer('postgres', { databaseUrl: database.url, env, config }));
    providers = [];
    for (const [index, shape] of PROVIDER_SHAPES.entries()) {
      const catalogues = cataloguesOf(shape.products);
      const host = await onboard(servers[0]!, `Soak Hosting ${index}`);
      const provider = {
        index,
        clients: shape.clients,
        refused: shape.refused,
        host,
        catalogues,
        bodies: bodiesOf(catalogues),
        keys: [],
        productIds: [],
      };
      providers.push(provider);
      const [row] = await servers[0]!.sql<{ id: string }>('SELECT id::text FROM hosts WHERE slug = $1', [host.slug]);
      hostOf.set(Number(row!.id), provider);
    }
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  /** Every client until the deadline, the database watched meanwhile. */
  async function soak(): Promise<Observed> {
    const watched = watch(servers[0]!, hostOf);
    const log: Exchange[] = [];
    const deadline = Date.now() + SOAK_SECONDS * 1000;
    await Promise.all([
      ...providers.flatMap((provider) =>
        Array.from({ length: provider.clients }, (_, client) =>
          providerClient(provider, servers, client, deadline, log),
        ),
      ),
      ...Array.from({ length: PUBLIC_READERS }, (_, reader) => publicReader(providers, servers, reader, deadline, log)),
    ]);
    const { refusalRows, keptKeys } = await watched.stop();
    const runs = await servers[0]!.sql<Observed['runs'][number]>(
      `SELECT id, host_id::text, dry_run, (extract(epoch FROM applied_at) * 1e6)::bigint::text AS at
       FROM sync_runs ORDER BY applied_at`,
    );
    return { log, refusalRows, keptKeys, runs };
  }

  it(
    'answers every request as the contract says, keeps every window and cap exact, and leaves each listing one catalogue sent',
    async () => {
      const observed = await soak();
      const report: Record<string, unknown> = {
        seconds: SOAK_SECONDS,
        requests: observed.log.length,
        answers: byStatus(observed.log),
      };

      // Every request answered, as the contract allows for what it sent; no 5xx.
      const wrong = observed.log.flatMap((x) => {
        const why = disallowed(x, x.provider === null ? null : providers[x.provider]!);
        return why === null
          ? []
          : [`${x.method} ${x.path} [${x.body ?? ''}, key ${x.keyUse}] → ${why}: ${x.text.slice(0, 300)}`];
      });
      const serverErrors = servers.flatMap((server) =>
        server
          .output()
          .split('\n')
          .filter((line) => /"level":(50|60)/.test(line)),
      );
      expect
        .soft(
          wrong.slice(0, 20),
          `${wrong.length} answers outside the contract; the servers logged:\n${serverErrors.slice(0, 5).join('\n')}`,
        )
        .toEqual([]);

      const reached = { keys: 0, bytesAndOneMore: 0 };
      for (const [hostId, provider] of hostOf) {
        const seen = seenOf(observed, provider, hostId);
        expectRunsAnswered(seen);
        const busiest = expectWindows(seen);
        const refusals = expectRefusalBudget(seen);
        const kept = expectKeptCaps(seen, observed.keptKeys);
        expectReplays(seen);
        const lastApplied = await expectListing(seen, servers[1]!);

        const largestAnswer = Math.max(0, ...seen.keptAnswers.map((x) => Buffer.byteLength(x.text)));
        reached.keys = Math.max(reached.keys, kept.keys);
        reached.bytesAndOneMore = Math.max(reached.bytesAndOneMore, kept.bytes + largestAnswer);
        report[seen.name] = {
          answers: byStatus(seen.syncs),
          runs: {
            applied: seen.runs.filter((run) => !run.dry_run).length,
            dryRuns: seen.runs.filter((run) => run.dry_run).length,
          },
          busiestWindow: { ...busiest, refusalsRecorded: refusals.recorded, refusalsAnswered: refusals.answered },
          mostKept: kept,
          lastApplied,
        };
      }
      console.log(JSON.stringify(report, null, 1));

      // The soak did what it is for: every kind of answer whose rule it checks came up, and both caps on kept
      // answers were reached (the count by the smaller answers, the bytes by the largest: one more would pass them).
      const answered = Object.keys(report.answers as Record<string, number>);
      for (const kind of [
        '200 replayed',
        '413 PAYLOAD_TOO_LARGE',
        '415 UNSUPPORTED_MEDIA_TYPE',
        '422 VALIDATION_FAILED',
        '422 IDEMPOTENCY_KEY_REUSED',
      ]) {
        expect.soft(answered, `the soak answered ${kind} at least once`).toContain(kind);
      }
      for (const policy of ['sync', 'dry-run', 'refused']) {
        expect
          .soft(answered, `the soak was refused by the ${policy} window at least once`)
          .toContain(`429 RATE_LIMITED (${policy})`);
      }
      expect
        .soft(reached.keys, 'the most keys kept for a provider')
        .toBeGreaterThanOrEqual(IDEMPOTENCY_MAX_KEYS_PER_HOST);
      expect
        .soft(reached.bytesAndOneMore, 'the most bytes kept for a provider, and one answer more')
        .toBeGreaterThan(IDEMPOTENCY_MAX_BYTES_PER_HOST);
    },
    SOAK_SECONDS * 1000 + 3 * ANSWER_DEADLINE_MS + 60_000,
  );
});
