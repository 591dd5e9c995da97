// The server: config → store → migrate → app → listen → graceful stop on SIGTERM/SIGINT. Started by main.ts (after
// the V8 flags it sets first) or by `hostdir serve`.
import cluster from 'node:cluster';
import { sizeYoungGeneration, startedWith } from './heap-flags.js';
import v8 from 'node:v8';
import { adminTokenPath, resolveAdminToken } from './admin-token.js';
import { joinMetricsCollection, runPrimary } from './cluster.js';
import { loadConfig, type Config } from './config.js';
import { buildApp, loggerOptions } from './http/app.js';
import { mallocOutcomes } from './malloc-settings.js';
import { isUnavailable, type Database } from './store/db.js';
import { migrate } from './store/migrate.js';
import { keepRatesFresh } from './rates-refresh.js';
import { deriveStaleProducts } from './store/derived.js';
import { forgetInstance, keepInstanceAlive, touchInstance } from './store/instances.js';
import { openDatabase, openDirectoryReads, withMigrationDatabase } from './store/open.js';
import { closeValidationPool } from './sync/validation-pool.js';
import { newId } from './catalog/ids.js';

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** Seconds between attempts to reach a database that was not reachable at start: doubling, up to the last. */
const PREPARE_RETRY_SECONDS = [1, 2, 4, 8, 15];

async function startServer(config: Config = loadConfig()): Promise<RunningServer> {
  const db: Database = await openDatabase(config);
  const admin = await resolveAdminToken(config);
  const lifecycle = { closing: false, prepared: false };
  // This process's heartbeat: should it die, its Idempotency-Key claims are free again seconds later.
  const instanceId = newId('ins');
  let heartbeat: { stop(): void } | null = null;
  let ratesRefresh: { stop(): void } | null = null;
  const logger = loggerOptions(config.logLevel, admin.token);
  // The public directory's reads go to a fresh replica of DATABASE_READ_URL when there is one.
  const replicas = openDirectoryReads(config, db, (replica, usable, why) =>
    usable
      ? app.log.info({ replica }, `the directory reads from replica ${replica} again: ${why}`)
      : app.log.warn({ replica }, `the directory reads from the primary instead of replica ${replica}: ${why}`),
  );
  const app = await buildApp({ config, db, directory: replicas ?? db, replicas: replicas ?? undefined, adminToken: admin.token, lifecycle, instanceId, logger });
  void replicas?.start();
  /** Migrations, then this process's heartbeat: what must be done on the database before it serves. */
  const prepare = async () => {
    await withMigrationDatabase(config, db, migrate);
    await touchInstance(db, instanceId);
    heartbeat = keepInstanceAlive(db, instanceId, (error) => app.log.warn({ err: error }, 'heartbeat failed'));
    lifecycle.prepared = true;
    if (config.ratesUrl) ratesRefresh = keepRatesFresh(db, config.ratesUrl, config.ratesRefreshSeconds, app.log);
    // Values derived by an older parser or gazetteer (or before there were any) are derived again, while serving.
    void deriveStaleProducts(db, { stop: () => lifecycle.closing }).then(
      (rewritten) => rewritten > 0 && app.log.info({ products: rewritten }, 'derived the comparable specs and facets again'),
      (error: unknown) => !lifecycle.closing && app.log.warn({ err: error }, 'deriving comparable specs and facets failed'),
    );
  };

  // A PostgreSQL server that is not reachable yet does not stop the start: the process serves /healthz (and 503
  // with Retry-After elsewhere) and keeps trying; the embedded store opens here or not at all.
  let retrying: NodeJS.Timeout | null = null;
  try {
    await prepare();
  } catch (error) {
    if (db.kind !== 'postgres' || !isUnavailable(error)) {
      await app.close();
      await db.close();
      throw error;
    }
    const which = config.migrationDatabaseUrl ? 'MIGRATION_DATABASE_URL or DATABASE_URL' : 'DATABASE_URL';
    app.log.warn({ err: error }, `the database (${which}) is not reachable; serving 503 until it is, and retrying`);
    const retry = (attempt: number) => {
      const seconds = PREPARE_RETRY_SECONDS[Math.min(attempt, PREPARE_RETRY_SECONDS.length - 1)]!;
      retrying = setTimeout(() => {
        retrying = null;
        if (lifecycle.closing) return;
        prepare().then(
          () => app.log.info('the database is reachable; migrations are done, serving'),
          (failure: unknown) => {
            if (!isUnavailable(failure)) app.log.error({ err: failure }, 'preparing the database failed');
            retry(attempt + 1);
          },
        );
      }, seconds * 1000);
      retrying.unref();
    };
    retry(0);
  }

  const url = await app.listen({ host: config.host, port: config.port });
  app.log.info(
    {
      store: db.kind === 'postgres' ? 'postgresql' : `embedded (${config.dataDir})`,
      admin_token: admin.source === 'env' ? 'from ADMIN_TOKEN' : `in ${adminTokenPath(config.dataDir)}`,
      ...Object.fromEntries(Object.entries(mallocOutcomes()).map(([setting, outcome]) => [`malloc_${setting}`, outcome])),
    },
    `hostdir listening on ${url}`,
  );

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      lifecycle.closing = true;
      app.log.info(`stopping: new requests get 503; running ones have ${config.shutdownTimeoutMs} ms to finish`);
      const deadline = setTimeout(() => {
        app.log.error('shutdown deadline passed; closing remaining connections and rolling back running syncs');
        app.server.closeAllConnections();
        void db.abort();
      }, config.shutdownTimeoutMs);
      deadline.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
        if (retrying) clearTimeout(retrying);
        (ratesRefresh as { stop(): void } | null)?.stop();
        await replicas?.stop();
        if (heartbeat) {
          (heartbeat as { stop(): void }).stop();
          await forgetInstance(db, instanceId).catch(() => undefined);
        }
        await closeValidationPool();
        await db.close();
      }
    })();
    return stopping;
  };
  return { url, stop };
}

/** A stop signal lets requests in flight finish and closes the database before the process ends. */
function stopOnSignal(server: RunningServer): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`hostdir: stopping failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
    });
  }
}

/**
 * How far, in percent, V8 lets its old generation grow past what survived its last full collection before the next.
 * A sync holds its normalized catalogue for seconds, so it reaches the old generation and is garbage there once the
 * sync ends. Left to its own heuristics, V8 let the heap grow to three or four times the data alive at its last
 * collection, and two or three syncs' worth of catalogues piled up: a 50 000-product sync peaked at about 350 MB of
 * resident memory instead of 220 (npm run bench, peak_rss_mb_50k). At 50 a full collection runs about twice per
 * large sync; the benchmark's times did not change measurably.
 */
const HEAP_GROWING_PERCENT = 50;

/**
 * The same on the embedded store, whose PostgreSQL shares the process: there a full collection comes more often,
 * about every 20% of growth, so that what a large sync leaves behind (its body's bytes once validated, the COPY
 * input already written) is freed before the sync ends instead of adding to its peak (README, "Memory of a large
 * sync").
 */
const EMBEDDED_HEAP_GROWING_PERCENT = 20;

/**
 * Bounds the heap's growth (see above) unless node was started with its own --heap-growing-percent, and on the embedded
 * store the young generation's unless it was started with its own semi-space flags.
 */
function boundHeapGrowth(config: Config): void {
  if (!startedWith(/heap[-_]growing[-_]percent/)) {
    const percent = config.databaseUrl ? HEAP_GROWING_PERCENT : EMBEDDED_HEAP_GROWING_PERCENT;
    v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  }
  sizeYoungGeneration(!config.databaseUrl);
}

/**
 * Serves with config.workers processes: one serves in this process; more make this process the primary of a
 * node:cluster whose workers share the port (config.ts refuses more than one on the embedded store).
 */
export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) {
    process.exit(await runPrimary(config));
  }
  if (cluster.isWorker) joinMetricsCollection();
  boundHeapGrowth(config);
  stopOnSignal(await startServer(config));
}

/** Serves as the environment configures it. */
export async function main(): Promise<void> {
  await serve(loadConfig());
}
