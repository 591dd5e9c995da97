// What the directory holds, reduced to digests, so that a test can prove a refused request changed nothing.
import { call, admin } from './api.js';
import type { ServerUnderTest } from './server.js';

/**
 * md5 of every row of every table (postgres store), read straight from the database. Tables are listed from the
 * catalog so that a table added later is covered without touching this function. Left out: the count of refused
 * requests (sync_refusals), which a refusal is meant to add to (its budget per window, config.ts; the refusals tests
 * check it), and likewise the refusal's report for the provider's dashboard (sync_refusal_reports; the dashboard's
 * tests check it), and the server processes' heartbeats (server_instances), which change every few seconds whatever happens.
 */
export async function databaseDigest(server: ServerUnderTest): Promise<string> {
  const tables = await server.sql<{ name: string }>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
       AND table_name NOT IN ('pgmigrations', 'sync_refusals', 'sync_refusal_reports', 'server_instances')
     ORDER BY table_name`,
  );
  const parts = await Promise.all(
    tables.map(async ({ name }) => {
      const [row] = await server.sql<{ digest: string }>(
        `SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest FROM ${name} t`,
      );
      return `${name}:${row!.digest}`;
    }),
  );
  return parts.join(' ');
}

/** The same promise through the API, for both stores: every host's products (all statuses) and sync runs. */
export async function visibleDigest(server: ServerUnderTest, keys: string[], slugs: string[]): Promise<string> {
  const parts: string[] = [];
  for (const key of keys) {
    const listing = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: key });
    parts.push(listing.text);
  }
  for (const slug of slugs) {
    const runs = await admin(server, 'GET', `/hosts/${slug}/syncs?limit=1000`);
    parts.push(runs.text);
  }
  return parts.join('\n');
}

/** The state a test compares before and after: the database digest where it can be read, else the API view. */
export function stateOf(server: ServerUnderTest, keys: string[], slugs: string[]): Promise<string> {
  return server.store === 'postgres' ? databaseDigest(server) : visibleDigest(server, keys, slugs);
}
