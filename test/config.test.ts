// Settings of the read replicas, read and checked once at start.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const PRIMARY = 'postgres://hostdir@db/hostdir';

describe('DATABASE_READ_URL and REPLICA_MAX_LAG_SECONDS', () => {
  it('takes one or more replicas, separated by commas (and spaces)', () => {
    const config = loadConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_READ_URL: 'postgres://hostdir@replica-1/hostdir, postgresql://hostdir@replica-2/hostdir',
    });
    expect(config.databaseReadUrls).toEqual(['postgres://hostdir@replica-1/hostdir', 'postgresql://hostdir@replica-2/hostdir']);
    expect(config.replicaMaxLagSeconds).toBe(5);
  });

  it('has no replicas by default', () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY }).databaseReadUrls).toEqual([]);
  });

  it('refuses replicas of the embedded store, and URLs that are not PostgreSQL ones', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://hostdir@replica/hostdir' })).toThrow(/DATABASE_READ_URL needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: 'mysql://replica/hostdir' })).toThrow(ConfigError);
  });

  it('reads the lag limit in whole seconds', () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_SECONDS: '30' }).replicaMaxLagSeconds).toBe(30);
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_SECONDS: '0' })).toThrow(/REPLICA_MAX_LAG_SECONDS/);
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_SECONDS: '0.5' })).toThrow(/REPLICA_MAX_LAG_SECONDS/);
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
    expect(loadConfig({ PUBLIC_URL: 'https://directory.example.org/' }).publicUrl).toBe('https://directory.example.org');
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:3000' }).publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('refuses anything but an http(s) origin', () => {
    for (const bad of ['directory.example.org', 'ftp://example.org', 'https://example.org/dir', 'https://example.org/?a=1', 'https://u:p@example.org', 'https://']) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL/);
    }
  });

  it('pages sitemaps by at most 50 000 URLs', () => {
    expect(loadConfig({}).sitemapUrlsPerPage).toBe(50_000);
    expect(loadConfig({ SITEMAP_URLS_PER_PAGE: '100' }).sitemapUrlsPerPage).toBe(100);
    expect(() => loadConfig({ SITEMAP_URLS_PER_PAGE: '50001' })).toThrow(/SITEMAP_URLS_PER_PAGE/);
  });
});
