// Reading exchange rates (the ECB's reference-rate XML and the JSON form) and converting through EUR.
import { describe, expect, it } from 'vitest';
import {
  fromBase,
  parseEcbXml,
  parseRatesFile,
  parseRatesJson,
  RatesFormatError,
  toBase,
  type RateTable,
} from '../../src/catalog/rates.js';

/** The shape of https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml: single quotes, tabs, namespaces. */
const DAILY = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='2024-06-28'>
\t\t\t<Cube currency='USD' rate='1.0705'/>
\t\t\t<Cube currency='JPY' rate='171.94'/>
\t\t\t<Cube currency='GBP' rate='0.84638'/>
\t\t\t<Cube currency='IDR' rate='17487.21'/>
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;

function problemsOf(read: () => unknown): { pointer: string; code: string }[] {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(RatesFormatError);
    return (error as RatesFormatError).problems.map(({ pointer, code }) => ({ pointer, code }));
  }
  throw new Error('expected the rates to be refused');
}

describe('the ECB reference-rate XML', () => {
  it('reads the day and every rate as exact decimal text', () => {
    const days = parseEcbXml(DAILY);
    expect(days).toHaveLength(1);
    expect(days[0]!.date).toBe('2024-06-28');
    expect(Object.fromEntries(days[0]!.rates)).toEqual({
      USD: '1.0705',
      JPY: '171.94',
      GBP: '0.84638',
      IDR: '17487.21',
    });
  });

  it('reads a history file of several days, double quotes too', () => {
    const history = `<gesmes:Envelope><Cube><Cube time="2024-06-28"><Cube currency="USD" rate="1.0705"/></Cube>
      <Cube time="2024-06-27"><Cube currency="USD" rate="1.0700"/><Cube currency="CHF" rate="0.9634"/></Cube></Cube></gesmes:Envelope>`;
    expect(parseEcbXml(history).map((day) => [day.date, day.rates.size])).toEqual([
      ['2024-06-28', 1],
      ['2024-06-27', 2],
    ]);
  });

  it.each([
    ['not the ECB shape at all', '<html><body>Service unavailable</body></html>', [{ pointer: '', code: 'format' }]],
    [
      'an envelope without a day',
      '<gesmes:Envelope><Cube></Cube></gesmes:Envelope>',
      [{ pointer: '', code: 'format' }],
    ],
    [
      'a day without rates',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[time='2024-06-28']", code: 'format' }],
    ],
    [
      'an impossible date',
      `<gesmes:Envelope><Cube><Cube time='2024-02-30'><Cube currency='USD' rate='1'/></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[time='2024-02-30']", code: 'date' }],
    ],
    [
      'a negative rate',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'><Cube currency='USD' rate='-1.07'/></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[currency='USD']", code: 'rate' }],
    ],
    [
      'a zero rate',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'><Cube currency='USD' rate='0'/></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[currency='USD']", code: 'rate' }],
    ],
    [
      'a rate in exponent form',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'><Cube currency='USD' rate='1e3'/></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[currency='USD']", code: 'rate' }],
    ],
    [
      'an unknown currency',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'><Cube currency='XYZ' rate='1.2'/></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[currency='XYZ']", code: 'currency' }],
    ],
    [
      'a rate for EUR itself',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'><Cube currency='EUR' rate='1'/></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[currency='EUR']", code: 'base_currency' }],
    ],
    [
      'a currency twice in a day',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'><Cube currency='USD' rate='1'/><Cube currency='USD' rate='2'/></Cube></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[currency='USD']", code: 'duplicate' }],
    ],
    [
      'a rate outside any day',
      `<gesmes:Envelope><Cube><Cube currency='USD' rate='1.07'/></Cube></gesmes:Envelope>`,
      [{ pointer: "Cube[currency='USD']", code: 'format' }],
    ],
    [
      'an envelope never closed',
      `<gesmes:Envelope><Cube><Cube time='2024-06-28'><Cube currency='USD' rate='1.07'/></Cube></Cube>`,
      [{ pointer: '', code: 'incomplete' }],
    ],
  ])('refuses %s, naming where', (_name, text, expected) => {
    expect(problemsOf(() => parseEcbXml(text))).toEqual(expected);
  });

  it('refuses a truncated download whole rather than importing half of it', () => {
    const truncated = DAILY.slice(0, DAILY.indexOf("<Cube currency='JPY'") + 22);
    expect(problemsOf(() => parseRatesFile(truncated))).toEqual([{ pointer: '', code: 'incomplete' }]);
  });
});

describe('the JSON form', () => {
  it('reads one day, numbers and strings alike', () => {
    const [day] = parseRatesJson({ base: 'EUR', date: '2026-11-20', rates: { USD: 1.0842, GBP: '0.8571', JPY: 171 } });
    expect(day!.date).toBe('2026-11-20');
    expect(Object.fromEntries(day!.rates)).toEqual({ USD: '1.0842', GBP: '0.8571', JPY: '171' });
  });

  it('reads several days as an array', () => {
    expect(
      parseRatesJson([
        { date: '2026-11-20', rates: { USD: 1.08 } },
        { date: '2026-11-19', rates: { USD: 1.07 } },
      ]),
    ).toHaveLength(2);
  });

  it.each([
    ['another base', { base: 'USD', date: '2026-11-20', rates: { EUR: 0.9 } }, ['/base', '/rates/EUR']],
    ['no date', { rates: { USD: 1.08 } }, ['/date']],
    ['no rates', { date: '2026-11-20', rates: {} }, ['/rates']],
    ['a rate that is no number', { date: '2026-11-20', rates: { USD: 'a lot' } }, ['/rates/USD']],
    ['an unknown field', { date: '2026-11-20', rates: { USD: 1 }, source: 'x' }, ['/source']],
    [
      'a day twice',
      [
        { date: '2026-11-20', rates: { USD: 1 } },
        { date: '2026-11-20', rates: { USD: 2 } },
      ],
      ['/1/date'],
    ],
    ['nothing', [], ['']],
    ['an infinite rate', { date: '2026-11-20', rates: { USD: Number.POSITIVE_INFINITY } }, ['/rates/USD']],
  ])('refuses %s', (_name, value, pointers) => {
    expect(problemsOf(() => parseRatesJson(value)).map((problem) => problem.pointer)).toEqual(pointers);
  });

  it('tells XML from JSON by the first character, and refuses what is neither', () => {
    expect(parseRatesFile(`\uFEFF  ${DAILY}`)[0]!.rates.get('USD')).toBe('1.0705');
    expect(parseRatesFile('{"date": "2026-11-20", "rates": {"USD": 1.1}}')[0]!.rates.get('USD')).toBe('1.1');
    expect(problemsOf(() => parseRatesFile('USD,1.07'))).toEqual([{ pointer: '', code: 'format' }]);
  });
});

describe('conversion through EUR', () => {
  const rates: RateTable = new Map([
    ['USD', { rate: 1.0705, date: '2024-06-28' }],
    ['GBP', { rate: 0.84638, date: '2024-06-28' }],
  ]);

  it.each([
    [10, 'EUR', 10],
    [10.705, 'USD', 10],
    [4.99, 'GBP', 5.895697],
    [0, 'USD', 0],
    [null, 'USD', null],
    [10, 'JPY', null],
  ])('%s %s is %s EUR', (amount, currency, expected) => {
    expect(toBase(amount, currency, rates)).toBe(expected);
  });

  it('converts from EUR to the cent, and not without a rate', () => {
    expect(fromBase(10, 'USD', rates)).toBe(10.71);
    expect(fromBase(10, 'EUR', rates)).toBe(10);
    expect(fromBase(10, 'CHF', rates)).toBeNull();
  });
});
