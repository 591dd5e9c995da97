// What every route plugin receives: settings, the database, and the server's lifecycle state.
import type { Mailer } from '../mail/mailer.js';
import type { Config } from '../config.js';
import type { KeyOwner } from '../store/api-keys.js';
import type { Database, Queryable } from '../store/db.js';
import type { ReplicaReport } from '../store/replicas.js';
import type { Metrics } from './metrics.js';
import type { SyncSlots } from '../sync/slots.js';

export interface AppContext {
  config: Config;
  db: Database;
  /**
   * What the public directory reads from: a fresh streaming replica when DATABASE_READ_URL names any, else the
   * primary. The provider's own reads, the admin API and every sync use db, so that they always see their writes.
   */
  directory: Queryable;
  /** the replicas' state for the metrics; none without DATABASE_READ_URL */
  replicas?: ReplicaReport | undefined;
  adminToken: string;
  /** this process among those sharing the database (instances.ts), kept alive by its heartbeat */
  instanceId: string;
  /**
   * closing: set when the server begins to stop, new requests get 503. prepared: set once the database has
   * answered and its migrations are done; until then, every route that needs it answers 503.
   */
  lifecycle: { closing: boolean; prepared: boolean };
  metrics: Metrics;
  /** bounds the sync transactions this process runs at once */
  syncSlots: SyncSlots;
  /** the mail this process sends: through SMTP_URL, or as .eml files under DATA_DIR/mail */
  mailer: Mailer;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the provider authenticated by its API key, on provider routes */
    provider?: KeyOwner;
  }
}
