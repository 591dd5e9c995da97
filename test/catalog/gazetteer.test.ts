import { describe, expect, it } from 'vitest';
import { countryCode, foldKey, GAZETTEER_SIZE, placeOf } from '../../src/catalog/gazetteer.js';

const CASES: [string, string | null, string | null][] = [
  ['FRA', 'Frankfurt', 'DE'],
  ['fra', 'Frankfurt', 'DE'],
  ['Frankfurt', 'Frankfurt', 'DE'],
  ['frankfurt', 'Frankfurt', 'DE'],
  ['Frankfurt am Main', 'Frankfurt', 'DE'],
  ['Frankfurt a.M.', 'Frankfurt', 'DE'],
  ['Frankfurt, Germany', 'Frankfurt', 'DE'],
  ['EU Central (Frankfurt am Main)', 'Frankfurt', 'DE'],
  ['de-fra-1', 'Frankfurt', 'DE'],
  ['fra1', 'Frankfurt', 'DE'],
  ['FSN1', 'Falkenstein', 'DE'],
  ['Falkenstein (FSN1)', 'Falkenstein', 'DE'],
  ['Nürnberg', 'Nuremberg', 'DE'],
  ['NUE', 'Nuremberg', 'DE'],
  ['AMS', 'Amsterdam', 'NL'],
  ['Amsterdam, NL', 'Amsterdam', 'NL'],
  ['LHR', 'London', 'GB'],
  ['London (UK)', 'London', 'GB'],
  ['New York', 'New York', 'US'],
  ['NYC', 'New York', 'US'],
  ['US East (Ashburn)', 'Ashburn', 'US'],
  ['Los Angeles', 'Los Angeles', 'US'],
  ['LAX', 'Los Angeles', 'US'],
  ['São Paulo', 'Sao Paulo', 'BR'],
  ['Sao Paulo', 'Sao Paulo', 'BR'],
  ['SIN', 'Singapore', 'SG'],
  ['Singapore', 'Singapore', 'SG'],
  ['Tokyo, Japan', 'Tokyo', 'JP'],
  ['München', 'Munich', 'DE'],
  ['Wien', 'Vienna', 'AT'],
  ['PER', 'Perth', 'AU'],
  ['Germany', null, 'DE'],
  ['Deutschland', null, 'DE'],
  ['DE', null, 'DE'],
  ['Somewhere in Finland', null, 'FI'],
  ['Mars Base One', null, null],
  ['Datacenter 7', null, null],
  ['', null, null],
  ['per month', null, null],
];

describe('placeOf', () => {
  it('knows a few hundred cities', () => {
    expect(GAZETTEER_SIZE).toBeGreaterThanOrEqual(200);
  });
  it.each(CASES)('%s', (location, city, country) => {
    const place = placeOf(location);
    expect(place?.city ?? null).toBe(city);
    expect(place?.country ?? null).toBe(country);
  });
  it('gives FRA, Frankfurt and Frankfurt am Main one key', () => {
    expect(new Set(['FRA', 'Frankfurt', 'frankfurt am main'].map((l) => placeOf(l)?.key))).toEqual(
      new Set(['frankfurt-de']),
    );
  });
});

describe('countryCode and foldKey', () => {
  it('reads countries by code or name', () => {
    expect(countryCode('de')).toBe('DE');
    expect(countryCode('Germany')).toBe('DE');
    expect(countryCode('Atlantis')).toBeNull();
  });
  it('ignores case and spacing', () => {
    expect(foldKey('DDoS-Protection')).toBe(foldKey('ddos protection'));
    expect(foldKey(' Daily  Backups ')).toBe('dailybackups');
  });
});
