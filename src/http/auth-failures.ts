// Throttling of repeated failed authentication per client address, kept in this process's memory.
// Per process is enough for its purpose: guessing a 256-bit key is hopeless anyway; the throttle keeps a client
// that hammers with wrong credentials from costing a digest lookup per request. With n processes a client gets
// at most n × the limit; a shared store would add a database write to every failure, which is what an attacker
// would want.

/** Failed authentications from one client address per window before it is answered 429. */
export const AUTH_FAILURE_LIMIT = 20;
/** That window: a mistyped key retried a few times stays well below the limit; a client guessing waits a minute. */
export const AUTH_FAILURE_WINDOW_SECONDS = 60;

interface Window {
  startedAt: number;
  failures: number;
}

export class AuthFailures {
  readonly #windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    /** addresses tracked at most; the oldest windows are dropped first, so memory stays bounded */
    readonly maxTracked = 10_000,
  ) {}

  /** Whole seconds until the address may try again; 0 when it is not blocked. */
  blockedFor(address: string, now = Date.now()): number {
    const window = this.#windows.get(address);
    if (!window || window.failures < this.limit) return 0;
    const endsAt = window.startedAt + this.windowSeconds * 1000;
    if (endsAt <= now) {
      this.#windows.delete(address);
      return 0;
    }
    return Math.max(1, Math.ceil((endsAt - now) / 1000));
  }

  recordFailure(address: string, now = Date.now()): void {
    const window = this.#windows.get(address);
    if (window && window.startedAt + this.windowSeconds * 1000 > now) {
      window.failures++;
      return;
    }
    if (window) this.#windows.delete(address);
    if (this.#windows.size >= this.maxTracked) this.#forgetOldest(now);
    // Insertion order is start order: the Map's first entries are always the oldest windows.
    this.#windows.set(address, { startedAt: now, failures: 1 });
  }

  get tracked(): number {
    return this.#windows.size;
  }

  #forgetOldest(now: number): void {
    for (const [address, window] of this.#windows) {
      const expired = window.startedAt + this.windowSeconds * 1000 <= now;
      if (!expired && this.#windows.size < this.maxTracked) return;
      this.#windows.delete(address);
    }
  }
}
