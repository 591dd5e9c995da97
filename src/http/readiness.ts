// Whether the database answers, known in bounded time whatever it does: what /readyz tells a load balancer.
//
// A load balancer gives its health check a second or two. Waiting on a database that stalled (connections open, no
// answers) lasted as long as the pool's own bounds (5 s for a connection, the statement timeout + 5 s for a query),
// and the check saw a dead process where there was an unready one. So at most one health query is out at a time, and
// the checks that come while it is out share it; a check waits for it a short while, and a query out for longer than
// that is the answer in itself, given at once without sending another.

export type DatabaseHealth =
  | { state: 'answering' }
  /** the health query has been out this long without an answer */
  | { state: 'silent'; forMs: number }
  /** the health query failed: no connection, or the database refused it */
  | { state: 'failing' };

/**
 * A check of the database through `ask` (one health query), answered within `patienceMs`: how long a check waits for
 * the health query before it calls the database silent.
 */
export function healthProbe(ask: () => Promise<unknown>, patienceMs = 750) {
  let pending: { sentAt: number; outcome: Promise<DatabaseHealth> } | null = null;

  const send = () => {
    const sentAt = Date.now();
    // Settled here whenever it ends, so that a query that fails after every check gave up on it rejects into nothing.
    const outcome = Promise.resolve()
      .then(ask)
      .then(
        (): DatabaseHealth => ({ state: 'answering' }),
        (): DatabaseHealth => ({ state: 'failing' }),
      )
      .finally(() => {
        pending = null;
      });
    pending = { sentAt, outcome };
    return pending;
  };

  return async function check(): Promise<DatabaseHealth> {
    const query = pending ?? send();
    const waited = Date.now() - query.sentAt;
    if (waited >= patienceMs) return { state: 'silent', forMs: waited };
    return (await within(query.outcome, patienceMs - waited)) ?? { state: 'silent', forMs: Date.now() - query.sentAt };
  };
}

/** `promise`'s value, or undefined once `ms` have passed */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
