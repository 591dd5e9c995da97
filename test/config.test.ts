// The settings read from the environment, checked once at start, and the values derived from them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const PRIMARY = 'postgres://hostdir@db/hostdir';

/** The names of the variables loadConfig asks its environment for. */
function variablesRead(): string[] {
  const read = new Set<string>();
  const env = new Proxy(
    {},
    {
      get: (_target, name) => {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    },
  );
  loadConfig(env);
  return [...read].sort();
}

describe('the environment', () => {
  it('reads at most 30 variables, exactly those docs/configuration.md lists', () => {
    const documented = [
      ...readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8').matchAll(/^\| `([A-Z_]+)` \|/gm),
    ].map((match) => match[1]!);
    expect(variablesRead()).toEqual([...documented].sort());
    expect(variablesRead().length).toBeLessThanOrEqual(30);
  });

  it('no longer reads the settings now fixed in code or derived: setting one changes nothing', () => {
    const removed = {
      PRICE_HISTORY: 'off',
      MAX_BODY_BYTES_PER_HOST: '1048576',
      DIRECTORY_CONCURRENCY: '1',
      SYNC_QUEUE_LIMIT: '0',
      HEADERS_TIMEOUT_MS: '1000',
      MIN_UPLOAD_BYTES_PER_S: '1',
      UPLOAD_GRACE_SECONDS: '1',
      AUTH_FAILURE_LIMIT: '1',
      AUTH_FAILURE_WINDOW_SECONDS: '1',
      IDEMPOTENCY_LEASE_SECONDS: '1',
      IDEMPOTENCY_KEY_TTL_SECONDS: '1',
      LOCK_TIMEOUT_MS: '100',
      RATES_REFRESH_SECONDS: '1',
      SITEMAP_URLS_PER_PAGE: '100',
      IDEMPOTENCY_MAX_KEYS_PER_HOST: '2',
      DRY_RUN_MAX_PER_WINDOW: '1000',
      REFUSED_MAX_PER_WINDOW: '1',
    };
    const read = variablesRead();
    for (const name of Object.keys(removed)) expect(read).not.toContain(name);
    expect(loadConfig(removed)).toEqual(loadConfig({}));
    expect(loadConfig({})).toMatchObject({
      syncQueueLimit: 100,
      headersTimeoutMs: 10_000,
      minUploadBytesPerS: 8192,
      uploadGraceMs: 10_000,
      authFailureLimit: 20,
      authFailureWindowSeconds: 60,
      idempotencyKeyTtlSeconds: 86_400,
      lockTimeoutMs: 10_000,
      ratesRefreshSeconds: 86_400,
      sitemapUrlsPerPage: 50_000,
      idempotencyMaxKeysPerHost: 1000,
    });
  });
});

describe('derived values', () => {
  it('gives one provider half the body memory, and never less than one largest body', () => {
    expect(loadConfig({}).maxBodyBytesPerHost).toBe(32 * 1024 * 1024);
    expect(loadConfig({ MAX_BODY_BYTES: '1048576', MAX_BODY_BYTES_IN_FLIGHT: '8388608' }).maxBodyBytesPerHost).toBe(
      4 * 1024 * 1024,
    );
    expect(loadConfig({ MAX_BODY_BYTES: '1048576', MAX_BODY_BYTES_IN_FLIGHT: '1572864' }).maxBodyBytesPerHost).toBe(
      1024 * 1024,
    );
  });

  it('gives the public directory the pool less the sync slots less one, at least one', () => {
    expect(loadConfig({}).directoryConcurrency).toBe(5);
    expect(loadConfig({ DB_POOL_SIZE: '20', SYNC_CONCURRENCY: '2' }).directoryConcurrency).toBe(17);
    expect(loadConfig({ DB_POOL_SIZE: '4', SYNC_CONCURRENCY: '4' }).directoryConcurrency).toBe(1);
  });

  it('leases an Idempotency-Key for longer than a request may take, at least 5 minutes', () => {
    expect(loadConfig({}).idempotencyLeaseSeconds).toBe(300);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '600000', STATEMENT_TIMEOUT_MS: '120000' }).idempotencyLeaseSeconds).toBe(
      840,
    );
  });

  it('allows ten dry runs per window for each applied sync: 10 by default', () => {
    expect(loadConfig({}).dryRunMaxPerWindow).toBe(10);
    expect(loadConfig({ SYNC_MAX_PER_WINDOW: '3' }).dryRunMaxPerWindow).toBe(30);
  });

  it('allows 60 refused requests per window, or as many as applied syncs if that is more', () => {
    expect(loadConfig({}).refusedMaxPerWindow).toBe(60);
    expect(loadConfig({ SYNC_MAX_PER_WINDOW: '60' }).refusedMaxPerWindow).toBe(60);
    expect(loadConfig({ SYNC_MAX_PER_WINDOW: '100' }).refusedMaxPerWindow).toBe(100);
  });

  it('wants the headers within 10 s, or within REQUEST_TIMEOUT_MS if that is shorter', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '2000' }).headersTimeoutMs).toBe(2000);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '60000' }).headersTimeoutMs).toBe(10_000);
  });
});

describe('DATABASE_READ_URL and REPLICA_MAX_LAG_SECONDS', () => {
  it('takes one or more replicas, separated by commas (and spaces)', () => {
    const config = loadConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_READ_URL: 'postgres://hostdir@replica-1/hostdir, postgresql://hostdir@replica-2/hostdir',
    });
    expect(config.databaseReadUrls).toEqual([
      'postgres://hostdir@replica-1/hostdir',
      'postgresql://hostdir@replica-2/hostdir',
    ]);
    expect(config.replicaMaxLagSeconds).toBe(5);
  });

  it('has no replicas by default', () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY }).databaseReadUrls).toEqual([]);
  });

  it('refuses replicas of the embedded store, and URLs that are not PostgreSQL ones', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://hostdir@replica/hostdir' })).toThrow(
      /DATABASE_READ_URL needs DATABASE_URL/,
    );
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: 'mysql://replica/hostdir' })).toThrow(
      ConfigError,
    );
  });

  it('reads the lag limit in whole seconds', () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_SECONDS: '30' }).replicaMaxLagSeconds).toBe(30);
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_SECONDS: '0' })).toThrow(
      /REPLICA_MAX_LAG_SECONDS/,
    );
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_SECONDS: '0.5' })).toThrow(
      /REPLICA_MAX_LAG_SECONDS/,
    );
  });
});

describe('TRUST_PROXY', () => {
  it('trusts nobody by default', () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
  });

  it('takes addresses, CIDR ranges and the named ranges', () => {
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8 ::1 fd00::/8 loopback uniquelocal' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
      'uniquelocal',
    ]);
  });

  it('refuses what is not an address or a range', () => {
    for (const bad of ['nginx', '10.0.0.0/33', '10.0.0.1/8/1', 'true', '::1/129']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });
});

describe('PUBLIC_URL', () => {
  it('is unset by default, and an origin when set (a trailing slash dropped)', () => {
    expect(loadConfig({}).publicUrl).toBeNull();
    expect(loadConfig({ PUBLIC_URL: 'https://directory.example.org/' }).publicUrl).toBe(
      'https://directory.example.org',
    );
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:3000' }).publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('refuses anything but an http(s) origin', () => {
    for (const bad of [
      'directory.example.org',
      'ftp://example.org',
      'https://example.org/dir',
      'https://example.org/?a=1',
      'https://u:p@example.org',
      'https://',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL/);
    }
  });
});

describe('SMTP_URL', () => {
  it('is unset by default (mail is written as .eml files), and kept as given when set', () => {
    expect(loadConfig({}).smtpUrl).toBeNull();
    expect(loadConfig({ SMTP_URL: 'smtps://user:secret@mail.example.org:465?from=a@example.org' }).smtpUrl).toBe(
      'smtps://user:secret@mail.example.org:465?from=a@example.org',
    );
  });

  it('refuses anything but an smtp:// or smtps:// URL', () => {
    for (const bad of ['mail.example.org', 'https://mail.example.org', 'smtp://', 'smtp:mail']) {
      expect(() => loadConfig({ SMTP_URL: bad }), bad).toThrow(/SMTP_URL/);
    }
  });
});
