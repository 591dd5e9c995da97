// Conformance of the original interface document, the statements that take more than one applied sync of a host:
// "created, updated or deactivated", and the rate limit's sliding window. The document's window is 5 minutes;
// these servers run the same rule (1 applied sync per window per host) with a 2-second window
// (SYNC_WINDOW_SECONDS), so that a test can wait for it to pass. Over HTTP, on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, sync, type Answer } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import { byExternalId, everyField, expectError, listing } from './helpers.js';

const WINDOW_SECONDS = 2;
const POLL_MS = 250;
/** Generous: a loaded machine may be slow, and nothing here is a timed assertion. */
const GIVE_UP_MS = 60_000;

/** Sends the sync until it is applied, polling while it is refused with 429; returns the answer and the refusals. */
async function syncWhenAllowed(
  server: TestServer,
  key: string,
  products: unknown[],
): Promise<{ applied: Answer; refused: Answer[] }> {
  const refused: Answer[] = [];
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline) {
    const answer = await sync(server, key, products);
    if (answer.status !== 429) return { applied: answer, refused };
    refused.push(answer);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`still refused after ${GIVE_UP_MS / 1000} s: ${refused.at(-1)?.text}`);
}

describe.each(STORES)('the interface document: syncs over time (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store, { env: { SYNC_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('"The submitted products are created, updated or deactivated on the listing."', async () => {
    const host = await onboard(server, 'Seed Lifecycle Hosting');
    const first = await sync(server, host.key, [
      everyField('keep', { name: 'Kept as it is' }),
      everyField('change', { name: 'Before', price: 5 }),
      everyField('drop', { name: 'Dropped later' }),
    ]);
    expect(first.status, first.text).toBe(200);
    const created = byExternalId(await listing(server, host.key));
    expect(Object.keys(created).sort()).toEqual(['change', 'drop', 'keep']);
    for (const p of Object.values(created)) expect(p.status).toBe('active');

    const { applied: second } = await syncWhenAllowed(server, host.key, [
      everyField('keep', { name: 'Kept as it is' }),
      everyField('change', { name: 'After', price: 7.5 }),
      everyField('new', { name: 'Added later' }),
    ]);
    expect(second.status, second.text).toBe(200);
    const after = byExternalId(await listing(server, host.key));
    expect(Object.keys(after).sort()).toEqual(['change', 'drop', 'keep', 'new']);
    // Created: the product that is new in the catalogue.
    expect(after.new).toMatchObject({ name: 'Added later', status: 'active' });
    // Updated: the same product, with the submitted values.
    expect(after.change).toMatchObject({ id: created.change.id, name: 'After', price: 7.5, status: 'active' });
    expect(after.keep).toMatchObject({ id: created.keep.id, name: 'Kept as it is', status: 'active' });
    // Deactivated: still on the listing, no longer active.
    expect(after.drop.id).toBe(created.drop.id);
    expect(after.drop.status).toBe('inactive');
  });

  it('"Request rate | 1 request per 5 minutes per host (provider), sliding window" — applied syncs of a host are always a whole window apart', async () => {
    const host = await onboard(server, 'Seed Sliding Window');
    const other = await onboard(server, 'Seed Sliding Window Other');
    const appliedAt: number[] = [];
    for (let n = 0; n < 3; n++) {
      const { applied, refused } = await syncWhenAllowed(server, host.key, [everyField(`round-${n}`)]);
      expect(applied.status, applied.text).toBe(200);
      appliedAt.push(Date.parse(applied.body.applied_at));
      if (n > 0) {
        // Inside the window the host was refused, each time with RATE_LIMITED, and the refusals changed nothing.
        expect(refused.length).toBeGreaterThan(0);
        for (const answer of refused) expectError(answer, 429, 'RATE_LIMITED');
      }
      expect((await listing(server, host.key)).filter((p) => p.status === 'active').map((p) => p.external_id)).toEqual([
        `round-${n}`,
      ]);
      // Meanwhile another host is not limited by this one.
      if (n === 0) expect((await sync(server, other.key, [everyField('other')])).status).toBe(200);
    }
    // A sliding window: never two applied syncs less than a window apart (a fixed window would let one through
    // right after its boundary). applied_at is the server's record, in milliseconds.
    for (let n = 1; n < appliedAt.length; n++) {
      expect(appliedAt[n]! - appliedAt[n - 1]!, `gap ${n}`).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000 - 1);
    }
  });
});
