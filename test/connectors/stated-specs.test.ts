// The specs and locations a billing system states, as the connectors read them: the description's lines in the
// forms providers write, configurable options with one choice or a location to choose, what is never read, the
// contract's limits, and what the directory's spec parser makes of the result.
import { describe, expect, it } from 'vitest';
import { normalizeSpecs, UNLIMITED } from '../../src/catalog/specs.js';
import { isLocationName, locationsIn, statedSpecs } from '../../src/connectors/stated-specs.js';

const fromDescription = (text: string) => statedSpecs(text, []);

describe('specs a description states', () => {
  it('reads "4 GB RAM" lines and "RAM: 4 GB" lines under their own words', () => {
    const stated = fromDescription(
      [
        '4 GB DDR4 RAM',
        '- 2 vCPU cores',
        '• 80 GB NVMe SSD',
        '✓ 1 Gbit/s port',
        'Traffic: 20 TB',
        'Unmetered bandwidth',
        '1 IPv4 address',
      ].join('\n'),
    );
    expect(stated).toEqual({
      specs: {
        'DDR4 RAM': '4 GB',
        'vCPU cores': '2',
        'NVMe SSD': '80 GB',
        port: '1 Gbit/s',
        Traffic: '20 TB',
        // Traffic is stated twice: the first figure is kept, the second (unmetered) disagrees.
        'IPv4 address': '1',
      },
      locations: [],
      notes: [
        'the description\'s "Unmetered bandwidth" disagrees with the description\'s "Traffic: 20 TB"; the first is kept',
      ],
    });
    expect(normalizeSpecs(stated.specs, 'vps_cloud')).toEqual({
      ram_gb: 4,
      cpu_cores: 2,
      disk_gb: 80,
      disk_type: 'nvme',
      port_mbps: 1000,
      bandwidth_tb: 20,
      ipv4: 1,
    });
  });

  it('reads several statements on one line, kept apart by bars, dots, semicolons or commas', () => {
    for (const line of [
      '4 GB RAM | 2 vCPU | 80 GB SSD',
      '4 GB RAM · 2 vCPU · 80 GB SSD',
      '4 GB RAM; 2 vCPU; 80 GB SSD',
      '4 GB RAM, 2 vCPU, 80 GB SSD',
    ]) {
      expect(fromDescription(line).specs, line).toEqual({ RAM: '4 GB', vCPU: '2', SSD: '80 GB' });
    }
    // A decimal comma is part of the figure.
    expect(fromDescription('1,5 TB HDD').specs).toEqual({ HDD: '1,5 TB' });
  });

  it('reads web and game plans the same way', () => {
    const web = fromDescription('Unlimited websites\n10 email accounts\n25 GB SSD storage');
    expect(web.specs).toEqual({ websites: 'Unlimited', 'email accounts': '10', 'SSD storage': '25 GB' });
    expect(normalizeSpecs(web.specs, 'web_shared')).toEqual({
      websites: UNLIMITED,
      email_accounts: 10,
      storage_gb: 25,
      disk_type: 'ssd',
    });
    expect(fromDescription('Player slots: 20\n6 GB RAM').specs).toEqual({ 'Player slots': '20', RAM: '6 GB' });
  });

  it('takes plain spaces for the non-breaking ones an editor writes', () => {
    expect(fromDescription('RAM:\u00a032\u202fGB\nCPU: 8\u00a0cores').specs).toEqual({ RAM: '32 GB', CPU: '8 cores' });
  });

  it('reads nothing from prose, from figures it cannot place, or from labels the spec parser does not know', () => {
    const stated = fromDescription(
      [
        'Our best plan for growing shops, with 4 GB RAM and room to grow.',
        '10 GB NVMe & free SSL',
        '30 day money-back guarantee',
        '99.9% uptime',
        '24/7 support',
        '5 MySQL databases',
        '10 subdomains',
        'Operating system: Debian 12',
        'CPU: Intel Xeon E5-2620',
        'Price: 5 EUR',
        '8 GB',
      ].join('\n'),
    );
    expect(stated).toEqual({ specs: {}, locations: [], notes: [] });
  });

  it('keeps the first statement of a figure: a repetition is skipped, a disagreement noted', () => {
    expect(fromDescription('RAM: 8 GB\n8 GB RAM\n8192 MB memory')).toEqual({
      specs: { RAM: '8 GB' },
      locations: [],
      notes: [],
    });
    // One note per figure, however many lines disagree with it.
    expect(fromDescription('2 vCPU\nCPU: 4 cores\n8 cores\n16 GB RAM\n32 GB RAM\n64 GB RAM').notes).toEqual([
      'the description\'s "CPU: 4 cores" disagrees with the description\'s "2 vCPU"; the first is kept',
      'the description\'s "32 GB RAM" disagrees with the description\'s "16 GB RAM"; the first is kept',
    ]);
  });

  it('skips a line longer than a statement is, and a spec value longer than the contract allows', () => {
    expect(fromDescription(`RAM: 4 GB ${'and more '.repeat(30)}`).specs).toEqual({});
    const stated = statedSpecs(null, [{ name: 'RAM', choices: [`4 GB ${'x'.repeat(1000)}`] }]);
    expect(stated.specs).toEqual({});
    expect(stated.notes).toEqual([
      expect.stringMatching(
        /^the configurable option "RAM" \("4 GB x+"\) is longer than a spec may be and is left out$/,
      ),
    ]);
  });
});

describe('specs and locations an option states', () => {
  it('takes an option offered with one choice as a spec, and none offered with several', () => {
    const stated = statedSpecs('Great for small projects', [
      { name: 'Memory', choices: ['4 GB'] },
      { name: 'Disk', choices: ['80 GB', '160 GB'] },
      { name: 'Operating System', choices: ['Debian 12'] },
    ]);
    expect(stated).toEqual({ specs: { Memory: '4 GB' }, locations: [], notes: [] });
  });

  it("lists every choice of a location option, each place once, before the description's", () => {
    const stated = statedSpecs('Location: Frankfurt, Germany\nLocations: Amsterdam / Paris', [
      { name: 'Server Location', choices: ['Frankfurt', 'New York, United States'] },
      { name: 'Data Center', choices: ['New York'] },
    ]);
    expect(stated.locations).toEqual(['Frankfurt', 'New York, United States', 'Amsterdam', 'Paris']);
  });

  it("stops at the contract's 100 locations and says so once, and leaves out a location longer than it allows", () => {
    const lines = Array.from({ length: 120 }, (_, i) => `Location: City ${i}`).join('\n');
    const stated = statedSpecs(lines, []);
    expect(stated.locations).toHaveLength(100);
    expect(stated.locations.at(-1)).toBe('City 99');
    expect(stated.notes).toEqual(['only the first 100 locations are listed']);
    const long = statedSpecs(null, [{ name: 'Location', choices: ['Frankfurt', 'Frankfurt am Main '.repeat(12)] }]);
    expect(long.locations).toEqual(['Frankfurt']);
    expect(long.notes).toEqual([
      'the configurable option "Location" names a location longer than 200 characters; it is left out',
    ]);
  });
});

describe('locations', () => {
  it('knows the labels that name where a plan runs', () => {
    for (const label of [
      'Location',
      'Server location',
      'Locations',
      'Data center',
      'Datacenter',
      'Data Centre',
      'Region',
      'Choose your region',
      'Standort',
      'Rechenzentrum',
      'Country',
    ]) {
      expect(isLocationName(label), label).toBe(true);
    }
    for (const label of [
      'Backup location',
      'RAM',
      'Operating system',
      'Zone file',
      'Location of backups and snapshots',
    ]) {
      expect(isLocationName(label), label).toBe(false);
    }
  });

  it('tells a list of places from one place named more closely', () => {
    expect(locationsIn('Frankfurt, Germany')).toEqual(['Frankfurt, Germany']);
    expect(locationsIn('Frankfurt, Amsterdam, New York')).toEqual(['Frankfurt', 'Amsterdam', 'New York']);
    expect(locationsIn('Amsterdam, Netherlands, Frankfurt, Germany')).toEqual([
      'Amsterdam, Netherlands',
      'Frankfurt, Germany',
    ]);
    expect(locationsIn('Germany, France')).toEqual(['Germany', 'France']);
    expect(locationsIn('Los Angeles, CA / Nuremberg, DE')).toEqual(['Los Angeles, CA', 'Nuremberg, DE']);
    expect(locationsIn('Falkenstein, Saxony')).toEqual(['Falkenstein, Saxony']);
    expect(locationsIn('Frankfurt/Main and London; Paris | Warsaw')).toEqual([
      'Frankfurt/Main',
      'London',
      'Paris',
      'Warsaw',
    ]);
  });
});
