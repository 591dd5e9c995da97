// The Atom builder: what it writes is a valid Atom 1.0 document (libxml2 against RFC 4287's RELAX NG schema), whatever
// the text it is given.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildAtom, xmlText, type AtomFeed } from '../../src/web/atom.js';
import { atomProblems } from '../support/atom-validator.js';

const feed = (entries: AtomFeed['entries'], title = 'hostdir: new plans'): AtomFeed => ({
  id: 'tag:hostdir,2026:feed?q=vps',
  title,
  updated: '2026-11-24T02:00:00.000Z',
  author: 'hostdir',
  links: [
    { href: 'http://127.0.0.1/api/v1/directory/feed.atom?q=vps', rel: 'self', type: 'application/atom+xml' },
    { href: 'http://127.0.0.1/search?q=vps', rel: 'alternate', type: 'text/html' },
  ],
  entries,
});

const entry = (title: string, summary = 'A plan') => ({
  id: 'tag:hostdir,2026:prd_01/created',
  title,
  updated: '2026-11-24T01:00:00.000Z',
  published: '2026-11-24T01:00:00.000Z',
  link: 'http://127.0.0.1/products/prd_01',
  summary,
  categories: [{ term: 'vps_cloud', label: 'Cloud VPS' }],
});

describe('Atom documents', () => {
  it('an empty feed and a feed with entries are valid Atom', async () => {
    expect(await atomProblems(buildAtom(feed([])))).toEqual([]);
    expect(await atomProblems(buildAtom(feed([entry('New: VPS S by Acme, $4.99 per month')])))).toEqual([]);
  });

  it('the validator refuses what is not Atom: it can fail', async () => {
    const noId = buildAtom(feed([entry('x')])).replace(/<id>tag:hostdir,2026:feed\?q=vps<\/id>/, '');
    expect((await atomProblems(noId)).length).toBeGreaterThan(0);
    const badDate = buildAtom(feed([entry('x')])).replace('2026-11-24T01:00:00.000Z</updated>', 'yesterday</updated>');
    expect((await atomProblems(badDate)).length).toBeGreaterThan(0);
    const twoAlternates = buildAtom(feed([entry('x')])).replace(
      '</entry>',
      '<link href="http://x/" rel="alternate" type="text/html"/></entry>',
    );
    expect(await atomProblems(twoAlternates)).toContain('entry 1 has two alternate links of one type and hreflang');
  });

  it('escapes markup and drops characters XML 1.0 cannot carry', async () => {
    expect(xmlText(`<b>"Tom" & 'Jerry'</b>`)).toBe('&lt;b&gt;&quot;Tom&quot; &amp; &apos;Jerry&apos;&lt;/b&gt;');
    expect(xmlText('a\u0001b\u000bc\ufffed\ud800e')).toBe('abcde');
    const xml = buildAtom(feed([entry('</title><script>alert(1)</script>\u0007', ']]> & <![CDATA[')]));
    expect(await atomProblems(xml)).toEqual([]);
    expect(xml).not.toContain('<script>');
  });

  it('any product names and summaries give a valid feed', async () => {
    // Several entries to a feed: each check (libxml2 started in a worker of its own) takes far longer than building a
    // feed, so each one reads five to eight, at least as many in all as one to a feed in 40 runs did.
    const texts = fc.tuple(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: 'grapheme', maxLength: 60 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(texts, { minLength: 5, maxLength: 8 }), async (entries) => {
        const title = entries[0]![0];
        const xml = buildAtom(
          feed(
            entries.map(([name, summary]) => entry(name, summary)),
            title,
          ),
        );
        expect(await atomProblems(xml)).toEqual([]);
      }),
      { numRuns: 8, seed: 16 },
    );
  });
});
