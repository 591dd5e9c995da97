// The pure rules of watches: what a watched search keeps of its filters, the buckets of the hash join, the digest,
// when mail and webhooks go, and the secrets derived from the server's key.
import { describe, expect, it } from 'vitest';
import { toProductSearch } from '../../src/http/directory-query.js';
import { productKeys, watchFilters } from '../../src/watches/filters.js';
import { digestMail, digestMessageId, type WatchEvent } from '../../src/watches/events.js';
import { givenUp, nextDigestAt, retryDelaySeconds } from '../../src/watches/schedule.js';
import {
  confirmDigest,
  manageToken,
  newConfirmToken,
  watchKey,
  watchOfToken,
  webhookSecret,
} from '../../src/watches/tokens.js';

const searchOf = (query: Record<string, unknown>) => toProductSearch(query, { staleAfterDays: 30 });

describe('watchFilters', () => {
  it('keeps the filters as columns, and sits in the bucket of its category and first facet', () => {
    const filters = watchFilters(
      searchOf({
        category: 'vps',
        country: 'de',
        feature: 'DDoS protection',
        min_ram_gb: 4,
        max_ram_gb: 16,
        disk_type: 'nvme',
        q: 'fast 16gb',
        max_price: 10,
        sort: 'name',
      }),
    );
    expect(filters).toEqual({
      category: 'vps',
      hostSlug: null,
      facets: ['c:DE', 'f:ddosprotection'],
      words: '(fast:*) & (16gb:*)',
      specs: '$.ram_gb >= 4 && $.ram_gb <= 16 && $.disk_type == "nvme"',
      currency: null,
      maxMonthlyPrice: null,
      maxBasePrice: 10,
      matchKey: 'vps|c:DE',
    });
  });

  it('puts a search without category or place in the directory-wide bucket', () => {
    expect(watchFilters(searchOf({ host: 'acme' }))).toMatchObject({
      hostSlug: 'acme',
      matchKey: '|',
      words: null,
      specs: null,
    });
  });

  it('refuses words that hold no letter or digit, which match nothing', () => {
    expect(() => watchFilters(searchOf({ q: '--- !!!' }))).toThrow('no letter or digit');
  });

  it('is met only by products whose buckets hold its key', () => {
    const keys = productKeys({ id: 'prd_1', category: 'vps', facets: ['c:DE', 'f:ddosprotection'] });
    for (const query of [
      { category: 'vps', country: 'DE' },
      { country: 'de' },
      { category: 'vps' },
      {},
      { feature: 'ddos protection' },
    ])
      expect(keys).toContain(watchFilters(searchOf(query)).matchKey);
    for (const query of [{ category: 'dedicated' }, { country: 'FR' }, { category: 'vps', country: 'NL' }])
      expect(keys).not.toContain(watchFilters(searchOf(query)).matchKey);
  });
});

describe('schedule', () => {
  it('mails at once after a quiet gap, else a gap after the last message', () => {
    expect(nextDigestAt(null, 3600)).toBeNull();
    expect(nextDigestAt(new Date('2026-01-01T10:00:00Z'), 3600)?.toISOString()).toBe('2026-01-01T11:00:00.000Z');
  });

  it('backs off exponentially, at most three hours apart, and gives up after a day', () => {
    expect([1, 2, 3, 4, 5].map(retryDelaySeconds)).toEqual([30, 60, 120, 240, 480]);
    expect(retryDelaySeconds(20)).toBe(3 * 3600);
    const occurred = new Date('2026-01-01T00:00:00Z');
    expect(givenUp(occurred, new Date('2026-01-01T23:59:59Z'), 86_400)).toBe(false);
    expect(givenUp(occurred, new Date('2026-01-02T00:00:00Z'), 86_400)).toBe(true);
  });
});

describe('tokens', () => {
  const key = watchKey('adm_test-token');
  const id = 'wch_01J0000000000000000000000A';

  it('derives a management token that names its watch, and refuses forged or foreign ones', () => {
    const token = manageToken(key, id);
    expect(token).toMatch(/^wtk_\w+$/);
    expect(watchOfToken(key, token)).toBe(id);
    expect(watchOfToken(watchKey('another admin token'), token)).toBeNull();
    expect(watchOfToken(key, `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`)).toBeNull();
    expect(watchOfToken(key, 'wtk_nonsense')).toBeNull();
  });

  it('gives each watch its own webhook secret in the Standard Webhooks form', () => {
    const secret = webhookSecret(key, id);
    expect(Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);
    expect(webhookSecret(key, 'wch_01J0000000000000000000000B')).not.toBe(secret);
  });

  it('keeps only the digest of a confirmation token', () => {
    const { token, digest } = newConfirmToken();
    expect(confirmDigest(token).equals(digest)).toBe(true);
    expect(digest.toString('hex')).not.toContain(token.slice(4));
  });
});

describe('digestMail', () => {
  const event = (kind: WatchEvent['kind'], name: string, prices: [number | null, number]): WatchEvent => ({
    id: `evt_${name}`,
    kind,
    occurred_at: '2026-01-01T00:00:00.000Z',
    product_id: `prd_${name}`,
    product: {
      id: `prd_${name}`,
      name,
      host: 'acme',
      host_name: 'Acme',
      category: 'vps',
      url: `https://d.example/products/prd_${name}`,
    },
    monthly_price: prices[1],
    currency: 'EUR',
    base_monthly_price: prices[1],
    previous_base_monthly_price: prices[0],
  });

  it('gathers every event since the last message, grouped by kind, with the unsubscribe link', () => {
    const mail = digestMail({
      watched: 'the search category=vps',
      events: [
        event('price_dropped', 'Cloud S', [10, 8]),
        event('matched', 'Cloud M', [null, 12]),
        event('price_dropped', 'Cloud L', [30, 25]),
      ],
      pageUrl: 'https://d.example/search?category=vps',
      unsubscribeUrl: 'https://d.example/watches/unsubscribe?token=wtk_x',
    });
    expect(mail.subject).toBe('hostdir: 3 changes to the search category=vps');
    expect(mail.text).toBe(
      [
        'Changes to the search category=vps on hostdir:',
        '',
        'New matches:',
        '- Cloud M (Acme) now matches — 12.00 EUR a month',
        '  https://d.example/products/prd_Cloud M',
        '',
        'Cheaper now:',
        '- Cloud S (Acme) costs less: €10.00 → €8.00 a month (in EUR) — 8.00 EUR a month',
        '  https://d.example/products/prd_Cloud S',
        '- Cloud L (Acme) costs less: €30.00 → €25.00 a month (in EUR) — 25.00 EUR a month',
        '  https://d.example/products/prd_Cloud L',
        '',
        'See them all: https://d.example/search?category=vps',
        '',
        'Stop these messages (one click): https://d.example/watches/unsubscribe?token=wtk_x',
        '',
      ].join('\n'),
    );
  });
});

describe('digestMessageId', () => {
  const events = (...ids: string[]) => ids.map((id) => ({ id }));

  it("is the same for the same watch and events, whatever their order, on the directory's host", () => {
    const first = digestMessageId('https://d.example', 'wch_1', events('evt_a', 'evt_b'));
    expect(first).toMatch(/^<digest\.[0-9a-f]{40}@d\.example>$/);
    expect(digestMessageId('https://d.example', 'wch_1', events('evt_b', 'evt_a'))).toBe(first);
  });

  it('differs for another watch or another set of events', () => {
    const first = digestMessageId('https://d.example', 'wch_1', events('evt_a', 'evt_b'));
    expect(digestMessageId('https://d.example', 'wch_2', events('evt_a', 'evt_b'))).not.toBe(first);
    expect(digestMessageId('https://d.example', 'wch_1', events('evt_a', 'evt_b', 'evt_c'))).not.toBe(first);
    expect(digestMessageId('https://d.example', 'wch_1', events('evt_a'))).not.toBe(first);
  });
});
