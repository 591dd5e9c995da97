import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConnection } from '../../src/cli/admin-client.js';
import { formatFields, formatTable, formatTimestamp, issuedKeyNotice, productsTable } from '../../src/cli/format.js';

describe('formatTable', () => {
  const columns = [
    { header: 'SLUG', value: (r: { slug: string; n: number }) => r.slug },
    { header: 'N', value: (r: { slug: string; n: number }) => String(r.n), align: 'right' as const },
    { header: 'NOTE', value: () => '' },
  ];

  it('pads every column to its widest cell, two spaces apart, without trailing blanks', () => {
    const text = formatTable(columns, [
      { slug: 'acme-hosting', n: 7 },
      { slug: 'b', n: 1234 },
    ]);
    expect(text.split('\n')).toEqual(['SLUG             N  NOTE', 'acme-hosting     7', 'b             1234']);
  });

  it('prints only the header when there are no rows', () => {
    expect(formatTable(columns, [])).toBe('SLUG  N  NOTE');
  });

  it('counts characters, not UTF-16 units, so letters outside the BMP keep the columns aligned', () => {
    const text = formatTable(
      [
        { header: 'A', value: (r: string) => r },
        { header: 'B', value: () => 'x' },
      ],
      ['ü𝔸c', 'abc'],
    );
    expect(text.split('\n')).toEqual(['A    B', 'ü𝔸c  x', 'abc  x']);
  });

  it('turns control characters into spaces so a name cannot break the table or drive the terminal', () => {
    const text = formatTable([{ header: 'NAME', value: (r: string) => r }], ['evil\n\u001b[2Jname']);
    expect(text).toBe('NAME\nevil  [2Jname');
  });
});

describe('formatFields', () => {
  it('aligns the values after the longest label', () => {
    expect(
      formatFields([
        ['slug', 'acme'],
        ['last sync', '-'],
      ]),
    ).toBe('slug       acme\nlast sync  -');
  });
});

describe('formatTimestamp', () => {
  it('shortens ISO instants to the second and shows null as a dash', () => {
    expect(formatTimestamp('2026-11-21T12:00:05.123Z')).toBe('2026-11-21 12:00:05Z');
    expect(formatTimestamp('2026-11-21T12:00:05Z')).toBe('2026-11-21 12:00:05Z');
    expect(formatTimestamp('yesterday')).toBe('yesterday');
    expect(formatTimestamp(null)).toBe('-');
  });
});

describe('resource views', () => {
  it('lists products with the price next to its currency, right-aligned', () => {
    const product = {
      id: 'prd_1',
      external_id: 'vps-s',
      name: 'VPS S',
      category: 'vps_cloud',
      price: 4.5,
      currency: 'EUR',
      status: 'active' as const,
      updated_at: '2026-11-21T12:00:00.000Z',
    };
    const text = productsTable([
      product,
      { ...product, id: 'prd_2', external_id: 'vps-xl', price: 120, currency: 'USD' },
    ]);
    expect(text.split('\n')).toEqual([
      'EXTERNAL ID  ID     STATUS  CATEGORY     PRICE  NAME',
      'vps-s        prd_1  active  vps_cloud  4.5 EUR  VPS S',
      'vps-xl       prd_2  active  vps_cloud  120 USD  VPS S',
    ]);
    expect(productsTable([])).toBe('No products.');
  });

  it('shows an issued key with a warning that it is shown only once', () => {
    const key = `rk_${'ab'.repeat(32)}`;
    const text = issuedKeyNotice({
      id: 'key_1',
      key,
      prefix: 'abababab',
      status: 'active',
      created_at: '2026-11-21T12:00:00.000Z',
      revoked_at: null,
      last_used_at: null,
      name: null,
    });
    expect(text).toContain(`API key  ${key}`);
    expect(text).toContain('key_1');
    expect(text).toMatch(/shown only once/);
  });
});

describe('resolveConnection', () => {
  const noFile = () => undefined;
  const files = (contents: Record<string, string>) => (path: string) => contents[path];

  it('defaults to http://127.0.0.1:3000', () => {
    expect(resolveConnection({ ADMIN_TOKEN: 't' }, noFile).baseUrl).toBe('http://127.0.0.1:3000');
  });

  it('takes HOSTDIR_URL, and --url over it, without a trailing slash', () => {
    const env = { ADMIN_TOKEN: 't', HOSTDIR_URL: 'http://dir.example:8080/' };
    expect(resolveConnection(env, noFile).baseUrl).toBe('http://dir.example:8080');
    expect(resolveConnection(env, noFile, 'https://other.example/hostdir/').baseUrl).toBe(
      'https://other.example/hostdir',
    );
  });

  it('refuses a URL that is not an http(s) URL', () => {
    expect(() => resolveConnection({ ADMIN_TOKEN: 't' }, noFile, 'localhost')).toThrow(ConfigError);
    expect(() => resolveConnection({ ADMIN_TOKEN: 't', HOSTDIR_URL: 'ftp://x' }, noFile)).toThrow(ConfigError);
  });

  it('prefers ADMIN_TOKEN to the token file', () => {
    const read = files({ 'data/admin-token': 'from-file' });
    expect(resolveConnection({ ADMIN_TOKEN: ' from-env\n' }, read).token).toBe('from-env');
  });

  it('reads and trims $DATA_DIR/admin-token, DATA_DIR defaulting to ./data', () => {
    expect(resolveConnection({}, files({ 'data/admin-token': 'tok\n' })).token).toBe('tok');
    expect(
      resolveConnection({ DATA_DIR: '/srv/hostdir' }, files({ '/srv/hostdir/admin-token': '  tok2  \n' })).token,
    ).toBe('tok2');
  });

  it('treats an empty ADMIN_TOKEN or an empty file as absent', () => {
    expect(resolveConnection({ ADMIN_TOKEN: '' }, files({ 'data/admin-token': 'tok' })).token).toBe('tok');
    expect(() => resolveConnection({}, files({ 'data/admin-token': ' \n' }))).toThrow(ConfigError);
  });

  it('says how to set ADMIN_TOKEN when there is no token anywhere', () => {
    expect(() => resolveConnection({ DATA_DIR: '/nowhere' }, noFile)).toThrow(/ADMIN_TOKEN.*\/nowhere\/admin-token/);
  });

  it('reports an unreadable token file as a configuration error', () => {
    const unreadable = () => {
      throw new Error('EACCES: permission denied');
    };
    expect(() => resolveConnection({}, unreadable)).toThrow(
      /cannot read the admin token from data\/admin-token: EACCES/,
    );
  });
});
