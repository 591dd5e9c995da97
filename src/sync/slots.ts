// Bounds the sync transactions one process runs at once, so that a flood of syncs cannot take every
// connection of the pool (reads and authentication keep theirs) nor queue without limit.

/**
 * Syncs one process lets wait for a free slot; beyond them a sync is answered 503 with Retry-After. A waiting sync
 * holds its validated catalogue in memory, so the queue has a bound; each provider syncs about once a window, and a
 * hundred syncs waiting in one process is a flood already.
 */
export const SYNC_QUEUE_LIMIT = 100;

export class SyncSlots {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly size: number,
    readonly queueLimit: number,
  ) {}

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs fn in a slot; null (fn not run) when every slot is taken and the queue is full. */
  async run<T>(fn: () => Promise<T>): Promise<{ value: T } | null> {
    if (this.#running >= this.size) {
      if (this.#waiting.length >= this.queueLimit) return null;
      // release() hands its slot straight to the first waiter, so #running stays counted.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return { value: await fn() };
    } finally {
      this.#release();
    }
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }
}
