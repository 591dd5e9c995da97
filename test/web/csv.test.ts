// CSV cells: RFC 4180 quoting, and text a spreadsheet would run as a formula defused.
import { describe, expect, it } from 'vitest';
import { csvNumber, csvRecord, csvText } from '../../src/web/csv.js';
import { parseCsv } from '../support/csv.js';

describe('CSV cells', () => {
  it('quotes a field holding a comma, a quote or a line break, doubling quotes', () => {
    expect(csvText('plain')).toBe('plain');
    expect(csvText('a,b')).toBe('"a,b"');
    expect(csvText('say "hi"')).toBe('"say ""hi"""');
    expect(csvText('two\nlines')).toBe('"two\nlines"');
    expect(csvText(null)).toBe('');
    expect(csvNumber(4.99)).toBe('4.99');
    expect(csvNumber(null)).toBe('');
  });

  it('defuses cells a spreadsheet would read as a formula', () => {
    expect(csvText('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvText('+1')).toBe("'+1");
    expect(csvText('-2+3')).toBe("'-2+3");
    expect(csvText('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvText('\t=1')).toBe("'\t=1");
    expect(csvText('\r=1')).toBe(`"'\r=1"`);
    expect(csvText('a=b')).toBe('a=b');
  });

  it('records end with CRLF and read back as written', () => {
    const values = ['x,y', 'q"uote', 'line\r\nbreak', '=cmd', ''];
    const text = csvRecord(values.map(csvText)) + csvRecord(['1', '2']);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([
      ['x,y', 'q"uote', 'line\r\nbreak', "'=cmd", ''],
      ['1', '2'],
    ]);
  });
});
