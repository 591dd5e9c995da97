import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatCount, formatDate, formatDuration, formatPrice, placeLabel, specLabel } from '../../src/web/format.js';
import { escapeHtml, html, queryString } from '../../src/web/html.js';

describe('html templates', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `<script>"x" & 'y'</script>`;
    expect(html`<a title="${name}">${name}</a>`.value).toBe(
      '<a title="&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;">&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;</a>',
    );
  });

  it('keeps nested templates as they are, renders lists and leaves out null, undefined and false', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>0');
  });

  it('escapes the five characters that matter and nothing else', () => {
    expect(escapeHtml('a&b<c>d"e\'f é')).toBe('a&amp;b&lt;c&gt;d&quot;e&#39;f é');
  });

  it('leaves control characters out of a page, but keeps tabs and line breaks', () => {
    expect(escapeHtml('a\u0000b\u001bc\u007fd\u0085e')).toBe('abcde');
    expect(escapeHtml('line\nnext\tcell\r')).toBe('line\nnext\tcell\r');
    expect(html`<p title="${'x\u0000'}">${'<\u0007>'}</p>`.value).toBe('<p title="x">&lt;&gt;</p>');
  });

  it('builds query strings without empty parameters', () => {
    expect(queryString({ q: 'a b&c', empty: '', none: undefined, n: 3 })).toBe('?q=a+b%26c&n=3');
    expect(queryString({})).toBe('');
  });
});

describe('formatting for people', () => {
  it('names a place by its city and country, by its country alone, or as listed', () => {
    expect(placeLabel({ location: 'Frankfurt am Main', city: 'Frankfurt', country: 'DE' })).toBe('Frankfurt, Germany');
    expect(placeLabel({ location: 'Germany', city: null, country: 'DE' })).toBe('Germany');
    expect(placeLabel({ location: 'DE', city: null, country: 'DE' })).toBe('Germany');
    expect(placeLabel({ location: 'eu-de-1', city: null, country: 'DE' })).toBe('eu-de-1, Germany');
    expect(placeLabel({ location: 'Mars Base One', city: null, country: null })).toBe('Mars Base One');
  });

  it('formats prices with their currency', () => {
    expect(formatPrice(4.99, 'USD')).toBe('$4.99');
    expect(formatPrice(1234.5, 'EUR')).toBe('€1,234.50');
    expect(formatPrice(0.0049, 'USD')).toBe('$0.0049');
    expect(formatPrice(10, 'JPY')).toBe('¥10');
  });

  it('formats a price the same however often and in whatever order it is asked, past the kept ones too', () => {
    const fresh = (amount: number, currency: string) =>
      new Intl.NumberFormat('en', { style: 'currency', currency, maximumFractionDigits: 4 }).format(amount);
    // Past the 4 000 kept for all currencies together: the same amounts in two currencies, twice over.
    for (let round = 0; round < 2; round++) {
      for (let cents = 0; cents < 15_000; cents += 7) {
        expect(formatPrice(cents / 100, 'GBP')).toBe(fresh(cents / 100, 'GBP'));
        expect(formatPrice(cents / 100, 'USD')).toBe(fresh(cents / 100, 'USD'));
      }
    }
    // -0 keeps its sign, whichever of the two was formatted first.
    expect(formatPrice(0, 'CHF')).toBe(fresh(0, 'CHF'));
    expect(formatPrice(-0, 'CHF')).toBe(fresh(-0, 'CHF'));
    expect(formatPrice(0, 'CHF')).toBe(fresh(0, 'CHF'));
  });

  it('formats dates in UTC and counts as a fresh Intl formatter does, and leaves a text that is no instant as it is', () => {
    expect(formatDate('2026-03-05T10:00:00Z')).toBe('Mar 5, 2026');
    expect(formatDate('2026-12-31T23:59:59.999+00:00')).toBe('Dec 31, 2026');
    expect(formatDate('2027-01-01T00:30:00+02:00')).toBe('Dec 31, 2026');
    expect(formatDate('not a date')).toBe('not a date');
    expect(formatCount(1234567)).toBe('1,234,567');
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (date) => {
          const fresh = date.toLocaleDateString('en', {
            year: 'numeric',
            month: 'short',
            day: 'numeric',
            timeZone: 'UTC',
          });
          expect(formatDate(date.toISOString())).toBe(fresh);
        },
      ),
    );
    fc.assert(
      fc.property(fc.nat(), (count) => {
        expect(formatCount(count)).toBe(count.toLocaleString('en'));
      }),
    );
  });

  it('spells contract durations and spec keys', () => {
    expect(formatDuration('P12M')).toBe('12 months');
    expect(formatDuration('P1Y')).toBe('1 year');
    expect(formatDuration('none')).toBe('No minimum term');
    expect(specLabel('cpu_cores')).toBe('CPU cores');
    expect(specLabel('ram_gb')).toBe('RAM (GB)');
    expect(specLabel('gpu')).toBe('GPU');
    expect(specLabel('Uplink')).toBe('Uplink');
    expect(specLabel('__proto__')).toBe('Proto');
    // Asked again (kept), the same.
    expect(specLabel('ram_gb')).toBe('RAM (GB)');
    expect(specLabel('__proto__')).toBe('Proto');
  });
});
