// Descriptions as billing systems keep them, reduced to the text a reader sees; hostile markup stays fast.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { htmlToLine, htmlToText } from '../../src/connectors/html-text.js';

describe('htmlToText', () => {
  it('drops tags, breaks lines at blocks and <br>, lists items', () => {
    expect(htmlToText('<p><strong>10 GB</strong> SSD</p><p>Free <em>SSL</em></p>')).toBe('10 GB SSD\nFree SSL');
    expect(htmlToText('Line one<br>Line two<br/><br />After a blank line')).toBe(
      'Line one\nLine two\n\nAfter a blank line',
    );
    expect(htmlToText('<ul>\n  <li>One</li>\n  <li>Two</li>\n</ul><ol><li>Three</li></ol>')).toBe(
      '- One\n- Two\n- Three',
    );
    expect(htmlToText('<table><tr><td>CPU</td><td>8 cores</td></tr><tr><th>RAM</th><td>32 GB</td></tr></table>')).toBe(
      'CPU 8 cores\nRAM 32 GB',
    );
    expect(htmlToText('<h2>Plan</h2>Text <a href="https://example.com/?a=1&amp;b=2" title="x > y">link</a>.')).toBe(
      'Plan\nText link.',
    );
  });

  it('decodes named and numeric entities, and keeps unknown ones and lone ampersands as written', () => {
    expect(htmlToText('<b>Fish &amp; Chips &lt;3 &quot;ok&quot; &euro;5 &copy; &hellip;</b>')).toBe(
      'Fish & Chips <3 "ok" €5 © …',
    );
    expect(htmlToText('<i>&#169; &#xA9; &#X1F680; &#0; &#xD800; &#x110000;</i>')).toBe('© © 🚀 \ufffd \ufffd \ufffd');
    expect(htmlToText('<p>R&D &notanentity; a & b &amp</p>')).toBe('R&D &notanentity; a & b &amp');
    expect(htmlToText('Plain &amp; simple')).toBe('Plain & simple');
  });

  it('leaves out scripts, styles, comments and declarations', () => {
    expect(
      htmlToText(
        '<!DOCTYPE html><style>p{color:red}</style><p>Shown</p><script>alert("<p>no</p>")</script><!-- note -->',
      ),
    ).toBe('Shown');
    expect(htmlToText('<SCRIPT type="text/javascript">x()</SCRIPT>After')).toBe('After');
    expect(htmlToText('Before<script>never closed')).toBe('Before');
  });

  it("keeps a plain text's own lines, collapsing spaces and at most one empty line", () => {
    expect(htmlToText('Unlimited websites\r\nUnlimited   e-mail\n\n\n\n  Daily backups  ')).toBe(
      'Unlimited websites\nUnlimited e-mail\n\nDaily backups',
    );
    expect(htmlToText('RAM < 2 GB, disk > 10 GB')).toBe('RAM < 2 GB, disk > 10 GB');
  });

  it('keeps unicode, drops control characters and unpaired surrogates', () => {
    expect(htmlToText('<p>Dédié — 東京 🚀 Ünïcödé</p>')).toBe('Dédié — 東京 🚀 Ünïcödé');
    expect(htmlToText('a\u0000b\u0007c\u009fd\tz\ud800')).toBe('abcd z');
  });

  it('drops a tag left open at the end, as a browser does', () => {
    expect(htmlToText('Text <a href="x')).toBe('Text');
    expect(htmlToText("Text <div class='x' ")).toBe('Text');
  });

  it('reads hostile markup in one pass (a megabyte of unclosed tags, quotes or entities)', () => {
    for (const unit of ["<a '", '<a "<b ', '&#', '&amp', '<!--', '<', '<script>', '</p', '<li>']) {
      const hostile = unit.repeat(Math.ceil(1_000_000 / unit.length));
      expect(typeof htmlToText(hostile)).toBe('string');
      expect(typeof htmlToText(`<p>${hostile}`)).toBe('string');
    }
  });

  it('never throws, never leaves a control character or a tag boundary marker, on any input', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            '<',
            '>',
            '/',
            '&',
            ';',
            '#',
            'x',
            'a',
            'p',
            'b',
            'r',
            'l',
            'i',
            ' ',
            '\n',
            '"',
            "'",
            '!',
            '-',
            '1',
            'é',
            '🚀',
          ),
        }),
        (input) => {
          const text = htmlToText(input);
          expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
          expect(text).toBe(text.trim());
          expect(text).not.toMatch(/\n\n\n/);
        },
      ),
      { seed: 18, numRuns: 2_000 },
    );
  });

  it('makes a one-line name', () => {
    expect(htmlToLine('Business &amp; Co')).toBe('Business & Co');
    expect(htmlToLine('<b>VPS</b><br>Large  ')).toBe('VPS Large');
  });
});
