#!/usr/bin/env node
// Start: config → store → migrate → app → listen → graceful stop on SIGTERM/SIGINT.
import { pathToFileURL } from 'node:url';
import { adminTokenPath, resolveAdminToken } from './admin-token.js';
import { loadConfig, type Config } from './config.js';
import { buildApp, loggerOptions } from './http/app.js';
import type { Database } from './store/db.js';
import { migrate } from './store/migrate.js';
import { openDatabase } from './store/open.js';

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

export async function startServer(config: Config = loadConfig()): Promise<RunningServer> {
  const db: Database = await openDatabase(config);
  await migrate(db);
  const admin = await resolveAdminToken(config);
  const lifecycle = { closing: false };
  const app = await buildApp({ config, db, adminToken: admin.token, lifecycle, logger: loggerOptions(config.logLevel, admin.token) });

  const url = await app.listen({ host: config.host, port: config.port });
  app.log.info(
    {
      store: db.kind === 'postgres' ? 'postgresql' : `embedded (${config.dataDir})`,
      admin_token: admin.source === 'env' ? 'from ADMIN_TOKEN' : `in ${adminTokenPath(config.dataDir)}`,
    },
    `hostdir listening on ${url}`,
  );

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      lifecycle.closing = true;
      const deadline = setTimeout(() => {
        app.log.error('shutdown deadline passed; closing remaining connections');
        app.server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      deadline.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
        await db.close();
      }
    })();
    return stopping;
  };
  return { url, stop };
}

/** A stop signal lets requests in flight finish and closes the database before the process ends. */
export function stopOnSignal(server: RunningServer): void {
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

async function main(): Promise<void> {
  stopOnSignal(await startServer());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(`hostdir failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
