// Several server processes on one port (node:cluster). The primary serves nothing itself: it forks the workers,
// replaces one that dies (with backoff), stops them all on SIGTERM, and sums their metrics for /metrics.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config.js';

const METRICS_REQUEST = 'hostdir:metrics-request';
const METRICS_RESPONSE = 'hostdir:metrics-response';

/** A worker that lived shorter than this counts as a failed start, and its replacement waits longer. */
const STABLE_AFTER_MS = 10_000;
const RESTART_DELAY_MIN_MS = 250;
const RESTART_DELAY_MAX_MS = 30_000;

function log(level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}): void {
  const levels = { info: 30, warn: 40, error: 50 };
  process.stdout.write(
    `${JSON.stringify({ level: levels[level], time: Date.now(), pid: process.pid, role: 'primary', ...extra, msg })}\n`,
  );
}

/** Runs the primary until SIGTERM or SIGINT has stopped every worker; resolves with the exit code. */
export function runPrimary(config: Config): Promise<number> {
  const aggregator = new AggregatorRegistry();
  const slots = new Map<Worker, { slot: number; startedAt: number }>();
  const failures = new Array<number>(config.workers).fill(0);
  let stopping = false;

  const fork = (slot: number) => {
    const worker = cluster.fork({ HOSTDIR_WORKER: String(slot) });
    slots.set(worker, { slot, startedAt: Date.now() });
  };

  cluster.on('message', (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, id: message.id, text }),
      (error: Error) =>
        worker.isConnected() && worker.send({ type: METRICS_RESPONSE, id: message.id, error: error.message }),
    );
  });

  return new Promise((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      const entry = slots.get(worker);
      slots.delete(worker);
      if (stopping) {
        if (slots.size === 0) resolve(0);
        return;
      }
      if (!entry) return;
      const lived = Date.now() - entry.startedAt;
      failures[entry.slot] = lived < STABLE_AFTER_MS ? (failures[entry.slot] ?? 0) + 1 : 0;
      const delay = Math.min(
        RESTART_DELAY_MAX_MS,
        RESTART_DELAY_MIN_MS * 2 ** Math.max(0, (failures[entry.slot] ?? 0) - 1),
      );
      log(
        'error',
        `worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another in ${delay} ms`,
        {
          worker: entry.slot,
        },
      );
      setTimeout(() => {
        if (!stopping) fork(entry.slot);
      }, delay).unref();
    });

    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      log('info', `${signal}: stopping ${slots.size} worker(s)`);
      if (slots.size === 0) return resolve(0);
      // Each worker stops gracefully on SIGTERM (running syncs finish within SHUTDOWN_TIMEOUT_MS).
      for (const worker of slots.keys()) worker.process.kill('SIGTERM');
      setTimeout(() => {
        for (const worker of slots.keys()) {
          log('error', `worker ${worker.process.pid} did not stop in time; killing it`);
          worker.process.kill('SIGKILL');
        }
      }, config.shutdownTimeoutMs + 5_000).unref();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));

    log('info', `starting ${config.workers} workers on ${config.host}:${config.port}`);
    for (let slot = 0; slot < config.workers; slot++) fork(slot);
  });
}

/** In a worker, from its first moment: answers the primary's metrics collection even before the app is up. */
export function joinMetricsCollection(): void {
  AggregatorRegistry.setRegistries([]);
  new AggregatorRegistry();
}

let nextRequest = 0;

/** In a worker: the metrics of every worker, summed by the primary. */
export function askPrimaryForMetrics(timeoutMs = 6_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const id = `${process.pid}:${nextRequest++}`;
    const onMessage = (message: { type?: unknown; id?: unknown; text?: unknown; error?: unknown }) => {
      if (message?.type !== METRICS_RESPONSE || message.id !== id) return;
      done();
      if (typeof message.text === 'string') resolve(message.text);
      else reject(new Error(`the primary could not collect the metrics: ${String(message.error)}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('the primary did not answer with the metrics'));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send!({ type: METRICS_REQUEST, id });
  });
}
