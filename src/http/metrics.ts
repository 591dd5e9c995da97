// Prometheus metrics of one server process: requests by route pattern, syncs by outcome, products by action,
// the database pool, the sync slots, the directory's statements, and prom-client's default process metrics (event-loop lag included).
import cluster from 'node:cluster';
import type { FastifyPluginAsync } from 'fastify';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SyncSummary } from '../catalog/types.js';
import { askPrimaryForMetrics } from '../cluster.js';
import type { Database } from '../store/db.js';
import type { ReadShare } from '../store/read-share.js';
import type { ReplicaReport } from '../store/replicas.js';
import type { SyncSlots } from '../sync/slots.js';
import { ALWAYS, HEADERS } from './schemas.js';

type SyncOutcomeLabel =
  | 'applied'
  | 'dry_run'
  | 'rate_limited'
  | 'refused'
  | 'unauthorized'
  | 'validation_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'error'
  | 'other';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  requestDuration: Histogram<'method' | 'route' | 'status'>;
  syncs: Counter<'outcome'>;
  products: Counter<'action'>;
}

export function createMetrics(db: Database, slots: SyncSlots, directory: ReadShare, replicas?: ReplicaReport): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics: Metrics = {
    registry,
    requests: new Counter({
      name: 'hostdir_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'hostdir_http_request_duration_seconds',
      help: 'Time from request to response, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    syncs: new Counter({
      name: 'hostdir_syncs_total',
      help: 'Calls of POST /api/v1/sync/products, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    products: new Counter({
      name: 'hostdir_synced_products_total',
      help: 'Products of applied syncs, by the action taken',
      labelNames: ['action'],
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'hostdir_db_pool_connections',
    help: 'PostgreSQL pool of this process: open connections (total), idle ones, and callers waiting for one',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = db.poolStats();
      if (!stats) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
  new Gauge({
    name: 'hostdir_sync_slots',
    help: 'Sync transactions running in this process, and syncs waiting for a slot',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'running' }, slots.running);
      this.set({ state: 'waiting' }, slots.waiting);
    },
  });
  new Gauge({
    name: 'hostdir_directory_statements',
    help: "Statements of the public directory's reads running in this process (at most DB_POOL_SIZE - SYNC_CONCURRENCY - 1), and statements waiting their turn",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = directory.stats();
      this.set({ state: 'running' }, stats.running);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
  if (replicas) replicaMetrics(registry, replicas);
  if (cluster.isWorker) {
    // Lets the primary collect this worker's metrics for the sum it serves (see askPrimaryForMetrics).
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  }
  return metrics;
}

/** Where the directory's queries ran, and each replica's state (DATABASE_READ_URL). */
function replicaMetrics(registry: Registry, replicas: ReplicaReport): void {
  new Counter({
    name: 'hostdir_directory_queries_total',
    help: "Queries of the public directory's reads, by the database that answered them: a replica or the primary",
    labelNames: ['served_by'],
    registers: [registry],
    collect() {
      // The counts are kept by the routing itself; the counter shows them as they are.
      this.reset();
      this.inc({ served_by: 'primary' }, replicas.served.primary);
      this.inc({ served_by: 'replica' }, replicas.served.replica);
    },
  });
  new Gauge({
    name: 'hostdir_replica_usable',
    help: 'Whether the directory reads from this replica (1): reachable, a standby, and within REPLICA_MAX_LAG_SECONDS',
    labelNames: ['replica'],
    registers: [registry],
    // Under --workers: 1 only if every worker uses it.
    aggregator: 'min',
    collect() {
      for (const state of replicas.states()) this.set({ replica: state.name }, state.usable ? 1 : 0);
    },
  });
  new Gauge({
    name: 'hostdir_replica_lag_seconds',
    help: "How far the replica's data is known to be behind the primary's; absent while unknown (unreachable)",
    labelNames: ['replica'],
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      for (const state of replicas.states())
        if (state.lagSeconds !== null) this.set({ replica: state.name }, state.lagSeconds);
    },
  });
}

export function syncOutcome(status: number, dryRun: boolean): SyncOutcomeLabel {
  switch (status) {
    case 200:
      return dryRun ? 'dry_run' : 'applied';
    case 401:
      return 'unauthorized';
    case 403:
      return 'refused';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 422:
      return 'validation_failed';
    case 429:
      return 'rate_limited';
    case 500:
      return 'error';
    case 503:
      return 'unavailable';
    default:
      return 'other';
  }
}

export function countProducts(metrics: Metrics, summary: SyncSummary): void {
  for (const action of ['created', 'updated', 'unchanged', 'reactivated', 'deactivated'] as const) {
    if (summary[action] > 0) metrics.products.inc({ action }, summary[action]);
  }
}

export const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics }> = async (app, context) => {
  const schema = {
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    tags: ['public'],
    security: [],
    response: {
      200: {
        description: 'the Prometheus text exposition format',
        headers: { 'x-request-id': HEADERS['x-request-id'] },
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      ...ALWAYS,
    },
  };
  app.get('/metrics', { schema }, async (_request, reply) => {
    // Under --workers any worker may take the scrape; it answers with the sum over all workers.
    const text = cluster.isWorker ? await askPrimaryForMetrics() : await context.metrics.registry.metrics();
    reply.type(context.metrics.registry.contentType);
    return text;
  });
};
