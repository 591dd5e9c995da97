// The server: config → store → migrate → app → listen → graceful stop on SIGTERM/SIGINT. Started by main.ts or by
// `hostdir serve`.
import cluster from 'node:cluster';
import { adminTokenPath, resolveAdminToken } from './admin-token.js';
import { joinMetricsCollection, runPrimary } from './cluster.js';
import { loadConfig, type Config } from './config.js';
import { createMailer } from './mail/mailer.js';
import { buildApp, loggerOptions, type LogDestination } from './http/app.js';
import { isUnavailable, type Database } from './store/db.js';
import { migrate } from './store/migrate.js';
import { keepRatesFresh } from './rates-refresh.js';
import { keepDeliveringWatches } from './watch-delivery.js';
import { watchKey } from './watches/tokens.js';
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

/**
 * Serves in this process as `config` says. The log goes to stdout, or to `log`: a server started inside another
 * program (a test's) writes where that program reads it.
 */
export async function startServer(config: Config = loadConfig(), log?: LogDestination): Promise<RunningServer> {
  const db: Database = await openDatabase(config);
  const admin = await resolveAdminToken(config);
  const lifecycle = { closing: false, prepared: false };
  // This process's heartbeat: should it die, its Idempotency-Key claims are free again seconds later.
  const instanceId = newId('ins');
  let heartbeat: { stop(): void } | null = null;
  let ratesRefresh: { stop(): void } | null = null;
  let watchDelivery: { stop(): Promise<void> } | null = null;
  let listening = '';
  const logger = loggerOptions(config.logLevel, admin.token, log);
  // The public directory's reads go to a fresh replica of DATABASE_READ_URL when there is one.
  const replicas = openDirectoryReads(config, db, (replica, usable, why) =>
    usable
      ? app.log.info({ replica }, `the directory reads from replica ${replica} again: ${why}`)
      : app.log.warn({ replica }, `the directory reads from the primary instead of replica ${replica}: ${why}`),
  );
  const mailer = createMailer(config);
  const app = await buildApp({
    config,
    mailer,
    db,
    directory: replicas ?? db,
    replicas: replicas ?? undefined,
    adminToken: admin.token,
    lifecycle,
    instanceId,
    logger,
  });
  void replicas?.start();
  /** Migrations, then this process's heartbeat: what must be done on the database before it serves. */
  const prepare = async () => {
    await withMigrationDatabase(config, db, migrate);
    await touchInstance(db, instanceId);
    heartbeat = keepInstanceAlive(db, instanceId, (error) => app.log.warn({ err: error }, 'heartbeat failed'));
    lifecycle.prepared = true;
    if (config.ratesUrl) ratesRefresh = keepRatesFresh(db, config.ratesUrl, config.ratesRefreshSeconds, app.log);
    watchDelivery = keepDeliveringWatches({
      db,
      mailer,
      key: watchKey(admin.token),
      baseUrl: () => config.publicUrl ?? listening,
      allowPrivateTargets: config.allowPrivateTargets,
      digestGapSeconds: config.watchDigestGapSeconds,
      pollMs: config.watchPollMs,
      log: app.log,
    });
    // Values derived by an older parser or gazetteer (or before there were any) are derived again, while serving.
    void deriveStaleProducts(db, { stop: () => lifecycle.closing }).then(
      (rewritten) =>
        rewritten > 0 && app.log.info({ products: rewritten }, 'derived the comparable specs and facets again'),
      (error: unknown) =>
        !lifecycle.closing && app.log.warn({ err: error }, 'deriving comparable specs and facets failed'),
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
  listening = url;
  app.log.info(
    {
      store: db.kind === 'postgres' ? 'postgresql' : `embedded (${config.dataDir})`,
      admin_token: admin.source === 'env' ? 'from ADMIN_TOKEN' : `in ${adminTokenPath(config.dataDir)}`,
      mail: config.smtpUrl ? `through ${mailer.destination}` : `no SMTP_URL: written as .eml ${mailer.destination}`,
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
        ratesRefresh?.stop();
        await watchDelivery?.stop();
        await replicas?.stop();
        if (heartbeat) {
          heartbeat.stop();
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
 * Serves with config.workers processes: one serves in this process; more make this process the primary of a
 * node:cluster whose workers share the port (config.ts refuses more than one on the embedded store).
 */
export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) {
    process.exit(await runPrimary(config));
  }
  if (cluster.isWorker) joinMetricsCollection();
  stopOnSignal(await startServer(config));
}

/** Serves as the environment configures it. */
export async function main(): Promise<void> {
  await serve(loadConfig());
}
