import { describe, expect, it } from 'vitest';
import { derivedOf } from '../../src/catalog/derived.js';
import { searchTerms, termQuery, type SearchTerm } from '../../src/catalog/search-terms.js';
import { specWords } from '../../src/catalog/specs.js';

describe('searchTerms', () => {
  const cases: [string, SearchTerm[]][] = [
    ['ryzen storage', [{ words: ['ryzen'] }, { words: ['storage'] }]],
    ['NVMe', [{ words: ['nvme'] }]],
    ['16 GB RAM', [{ words: ['16', 'gb'], token: '16gb' }, { words: ['ram'] }]],
    ['16gb ram', [{ words: ['16gb'], token: '16gb' }, { words: ['ram'] }]],
    ['8 GiB', [{ words: ['8', 'gib'], token: '8gb' }]],
    ['2 TB traffic', [{ words: ['2', 'tb'], token: '2tb' }, { words: ['traffic'] }]],
    ['4 vCPUs', [{ words: ['4', 'vcpus'], token: '4core' }]],
    ['4cores', [{ words: ['4cores'], token: '4core' }]],
    ['10 Gbps', [{ words: ['10', 'gbps'], token: '10gbit' }]],
    ['500 mbit', [{ words: ['500', 'mbit'], token: '500mbit' }]],
    ['minecraft 20 players', [{ words: ['minecraft'] }, { words: ['20', 'players'], token: '20slot' }]],
    // a number without a unit, or a unit without a number, stays words
    ['1000', [{ words: ['1000'] }]],
    ['gb', [{ words: ['gb'] }]],
    ['v2 server', [{ words: ['v2'] }, { words: ['server'] }]],
    // places the text would not match as typed
    ['frankfurt am main', [{ words: ['frankfurt', 'am', 'main'], facet: 'p:frankfurt-de' }]],
    [
      'vps Frankfurt am Main nvme',
      [{ words: ['vps'] }, { words: ['frankfurt', 'am', 'main'], facet: 'p:frankfurt-de' }, { words: ['nvme'] }],
    ],
    ['München', [{ words: ['münchen'], facet: 'p:munich-de' }]],
    ['uk', [{ words: ['uk'], facet: 'c:GB' }]],
    ['Deutschland', [{ words: ['deutschland'], facet: 'c:DE' }]],
    ['de', [{ words: ['de'], facet: 'c:DE' }]],
    ['great britain', [{ words: ['great', 'britain'], facet: 'c:GB' }]],
    // places the text matches already stay words
    ['frankfurt', [{ words: ['frankfurt'] }]],
    ['fra', [{ words: ['fra'] }]],
    ['new york', [{ words: ['new'] }, { words: ['york'] }]],
    ['germany', [{ words: ['germany'] }]],
    // codes that are also words are the word
    ['it', [{ words: ['it'] }]],
    ['man', [{ words: ['man'] }]],
    // joining words are left out beside others, kept alone
    ['vps in frankfurt', [{ words: ['vps'] }, { words: ['frankfurt'] }]],
    ['the', [{ words: ['the'] }]],
    ['', []],
    ['!!!', []],
  ];
  it.each(cases)('%j', (text, terms) => {
    expect(searchTerms(text)).toEqual(terms);
  });

  it('reads at most eight words', () => {
    expect(searchTerms('a1 a2 a3 a4 a5 a6 a7 a8 a9 a10').map((term) => term.words[0])).toEqual([
      'a1',
      'a2',
      'a3',
      'a4',
      'a5',
      'a6',
      'a7',
      'a8',
    ]);
  });
});

describe('termQuery', () => {
  it('matches every word typed as a prefix, or a size as its token or its whole number and its unit', () => {
    expect(termQuery({ words: ['ryzen'] })).toBe('ryzen:*');
    expect(termQuery({ words: ['16', 'gb'], token: '16gb' })).toBe('16gb | 16 & gb:*');
    expect(termQuery({ words: ['16gb'], token: '16gb' })).toBe('16gb:*');
    expect(termQuery({ words: ['frankfurt', 'am', 'main'], facet: 'p:frankfurt-de' })).toBe(
      'frankfurt:* & am:* & main:*',
    );
  });
});

describe('the tokens the specs add for the terms to find', () => {
  it('gives each size as a token, "ram" beside a RAM size, and 1000 GB as 1 TB too', () => {
    expect(
      specWords({ ram_gb: 16, cpu_cores: 4, disk_gb: 1000, disk_type: 'nvme', bandwidth_tb: 20, port_mbps: 1000 }),
    ).toEqual(['nvme', 'ram', '16gb', '1000gb', '1tb', '20tb', '1000mbit', '1gbit', '4core']);
    expect(specWords({ player_slots: 32, ram_gb: 0.5 })).toEqual(['ram', '32slot']);
    expect(specWords({ bandwidth_tb: 1_000_000_000 })).toEqual(['unmetered', 'unlimited']);
  });

  it('every size term of a query finds the product whose specs give that size', () => {
    const extra = derivedOf({
      category: 'vps_cloud',
      specs: { Memory: '16 GB', CPU: '4 vCores', Port: '1 Gbit/s' },
      features: null,
      datacenter_locations: null,
    }).search_extra.split(' ');
    for (const typed of ['16 GB', '16gb', '4 cores', '4 vcpu', '1 gbit', '1000 mbps']) {
      const [term] = searchTerms(typed);
      expect(extra, typed).toContain(term!.token);
    }
  });
});
