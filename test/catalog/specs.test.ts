import { describe, expect, it } from 'vitest';
import { formatSpecValue, normalizeSpecs, readSpec, specFamily, UNLIMITED } from '../../src/catalog/specs.js';

const U = UNLIMITED;

// [key, value as a provider sends it, what it reads as]
const PAIRS: [string, string, Record<string, number | string>][] = [
  // RAM
  ['Memory', '4 GB', { ram_gb: 4 }],
  ['RAM (GB)', '2', { ram_gb: 2 }],
  ['ram', '4096 MB', { ram_gb: 4 }],
  ['ram', '4096', { ram_gb: 4 }],
  ['ram', '8', { ram_gb: 8 }],
  ['ram_gb', '16', { ram_gb: 16 }],
  ['ram_mb', '2048', { ram_gb: 2 }],
  ['RAM', '512MB', { ram_gb: 0.5 }],
  ['RAM', '1 GiB', { ram_gb: 1 }],
  ['RAM', '32GB DDR4 ECC', { ram_gb: 32 }],
  ['Memory', '128 GB DDR5', { ram_gb: 128 }],
  ['memory', '1.5 GB', { ram_gb: 1.5 }],
  ['Memory', '1,5 GB', { ram_gb: 1.5 }],
  ['Arbeitsspeicher', '64 GB', { ram_gb: 64 }],
  ['Guaranteed RAM', '6 GB', { ram_gb: 6 }],
  ['Max RAM', '10GB', { ram_gb: 10 }],
  ['memoryMB', '1024', { ram_gb: 1 }],
  ['RAM', '256 GB', { ram_gb: 256 }],
  ['RAM', '4 x 32 GB', { ram_gb: 128 }],
  ['mem', '3G', { ram_gb: 3 }],
  ['RAM Size', '768 MB', { ram_gb: 0.75 }],
  ['ram', 'unlimited', {}],
  ['DDR4', '16 GB', { ram_gb: 16 }],
  ['System memory', '2 GB', { ram_gb: 2 }],
  ['Memory (MiB)', '8192', { ram_gb: 8 }],
  // CPU
  ['CPU', '4', { cpu_cores: 4 }],
  ['cpu_cores', '2', { cpu_cores: 2 }],
  ['vCPU', '8', { cpu_cores: 8 }],
  ['CPU', '4 vCPU', { cpu_cores: 4 }],
  ['CPU', '2 vCores', { cpu_cores: 2 }],
  ['Cores', '16', { cpu_cores: 16 }],
  ['Processor', 'AMD Ryzen 9 5950X (16 cores)', { cpu_cores: 16 }],
  ['CPU', 'Intel Xeon E-2236 6 Cores', { cpu_cores: 6 }],
  ['CPU', '8 cores / 16 threads', { cpu_cores: 8 }],
  ['CPU', '2 x 12 cores', { cpu_cores: 24 }],
  ['CPU', 'Intel Xeon E3-1230v3', {}],
  ['cpu', '1 vCore', { cpu_cores: 1 }],
  ['vcpus', '3', { cpu_cores: 3 }],
  ['CPU cores', '6', { cpu_cores: 6 }],
  ['Virtual CPU', '2 vCPUs', { cpu_cores: 2 }],
  ['CPU', '4 Kerne', { cpu_cores: 4 }],
  ['cpu', '4c', { cpu_cores: 4 }],
  ['cores', '64', { cpu_cores: 64 }],
  ['Threads', '32', { cpu_cores: 32 }],
  ['CPU', 'Shared', {}],
  ['processor', 'AMD EPYC 7543P 32-Core', { cpu_cores: 32 }],
  ['CPU', '1 core', { cpu_cores: 1 }],
  ['Number of CPUs', '2', { cpu_cores: 2 }],
  // Disk
  ['Disk', '80 GB SSD', { disk_gb: 80, disk_type: 'ssd' }],
  ['Disk', '2x 1TB NVMe', { disk_gb: 2000, disk_type: 'nvme' }],
  ['disk_gb', '40', { disk_gb: 40 }],
  ['Storage', '500 GB NVMe', { disk_gb: 500, disk_type: 'nvme' }],
  ['SSD', '100 GB', { disk_gb: 100, disk_type: 'ssd' }],
  ['NVMe', '250 GB', { disk_gb: 250, disk_type: 'nvme' }],
  ['HDD', '4 TB', { disk_gb: 4000, disk_type: 'hdd' }],
  ['Disk space', '25GB', { disk_gb: 25 }],
  ['Storage (GB)', '160', { disk_gb: 160 }],
  ['disk', '2x 480GB SSD', { disk_gb: 960, disk_type: 'ssd' }],
  ['Drives', '2 x 4 TB SATA', { disk_gb: 8000, disk_type: 'hdd' }],
  ['Disk', '1.92 TB NVMe', { disk_gb: 1920, disk_type: 'nvme' }],
  ['Storage', '2x 512 GB NVMe + 2x 4 TB HDD', { disk_gb: 9024, disk_type: 'nvme' }],
  ['disk_tb', '2', { disk_gb: 2000 }],
  ['SSD Space', '50 GB', { disk_gb: 50, disk_type: 'ssd' }],
  ['Storage type', 'NVMe SSD', { disk_type: 'nvme' }],
  ['disk_type', 'SSD', { disk_type: 'ssd' }],
  ['Disk Type', 'HDD', { disk_type: 'hdd' }],
  ['Festplatte', '1000 GB', { disk_gb: 1000 }],
  ['Storage', '1,000 GB', { disk_gb: 1000 }],
  ['Storage', '1.000 GB', { disk_gb: 1000 }],
  ['Disk', '20 GB SAS', { disk_gb: 20, disk_type: 'hdd' }],
  ['NVMe storage', '120', { disk_gb: 120, disk_type: 'nvme' }],
  ['Disk', 'Solid state 60 GB', { disk_gb: 60, disk_type: 'ssd' }],
  ['diskSizeGb', '30', { disk_gb: 30 }],
  ['Disk', '10240 MB', { disk_gb: 10 }],
  // Traffic
  ['Traffic', '20 TB', { bandwidth_tb: 20 }],
  ['traffic_tb', '5', { bandwidth_tb: 5 }],
  ['transfer_tb', '3', { bandwidth_tb: 3 }],
  ['Bandwidth', '500 GB', { bandwidth_tb: 0.5 }],
  ['Bandwidth', 'Unmetered', { bandwidth_tb: U }],
  ['Traffic', 'unlimited', { bandwidth_tb: U }],
  ['Transfer', '1 TB', { bandwidth_tb: 1 }],
  ['Data transfer', '2TB/month', { bandwidth_tb: 2 }],
  ['traffic', '10', { bandwidth_tb: 10 }],
  ['traffic_gb', '1000', { bandwidth_tb: 1 }],
  ['Bandwidth', '1 Gbit/s', { port_mbps: 1000 }],
  ['Bandwidth', '100 Mbps unmetered', { port_mbps: 100, bandwidth_tb: U }],
  ['Monthly traffic', '32 TB', { bandwidth_tb: 32 }],
  ['Traffic', 'Fair use', { bandwidth_tb: U }],
  ['Traffic', '∞', { bandwidth_tb: U }],
  ['Traffic (TB)', '20', { bandwidth_tb: 20 }],
  ['Included traffic', '4 TB', { bandwidth_tb: 4 }],
  ['Egress', '250 GB', { bandwidth_tb: 0.25 }],
  ['Traffic', 'Unbegrenzt', { bandwidth_tb: U }],
  ['Bandwidth', '10TB', { bandwidth_tb: 10 }],
  // Port
  ['Port', '1 Gbit/s', { port_mbps: 1000 }],
  ['Port', '1Gbps', { port_mbps: 1000 }],
  ['Port speed', '10 Gbit', { port_mbps: 10000 }],
  ['Uplink', '100 Mbit/s', { port_mbps: 100 }],
  ['Network', '10 GbE', { port_mbps: 10000 }],
  ['port_mbps', '1000', { port_mbps: 1000 }],
  ['port_gbps', '10', { port_mbps: 10000 }],
  ['Network speed', '2.5 Gbps', { port_mbps: 2500 }],
  ['Uplink', '1 Gb/s', { port_mbps: 1000 }],
  ['Port', '1000 Mbps', { port_mbps: 1000 }],
  ['NIC', '25 Gbit/s', { port_mbps: 25000 }],
  ['Anbindung', '1 GBit/s', { port_mbps: 1000 }],
  ['Connection', '500 Mbit', { port_mbps: 500 }],
  ['Port', '1 Gigabit', { port_mbps: 1000 }],
  ['Network', 'Private', {}],
  // IPv4
  ['IPv4', '1', { ipv4: 1 }],
  ['ipv4', 'yes', { ipv4: 1 }],
  ['IPv4 addresses', '2', { ipv4: 2 }],
  ['IP', '1 IPv4', { ipv4: 1 }],
  ['Dedicated IP', 'Included', { ipv4: 1 }],
  ['IPv4', 'none', { ipv4: 0 }],
  ['ipv4', 'true', { ipv4: 1 }],
  ['IPs', '/29 subnet', { ipv4: 8 }],
  ['IPv4', '1 x IPv4', { ipv4: 1 }],
  ['IP addresses', '5 IPv4', { ipv4: 5 }],
  ['IPv4', 'No', { ipv4: 0 }],
  ['IPv6', '/64', {}],
  // Game servers
  ['Slots', '32', { player_slots: 32 }],
  ['player_slots', '20', { player_slots: 20 }],
  ['Players', '64 players', { player_slots: 64 }],
  ['Max players', '100', { player_slots: 100 }],
  ['slots', 'Unlimited', { player_slots: U }],
  ['Player Slots', '10 Slots', { player_slots: 10 }],
  ['Spieler', '16', {}],
  ['Voice slots', '50', { player_slots: 50 }],
  ['Slots', '12 Spieler', { player_slots: 12 }],
  // Web hosting
  ['Websites', '1', { websites: 1 }],
  ['websites', 'Unlimited', { websites: U }],
  ['Domains', '3 domains', { websites: 3 }],
  ['Sites', '10', { websites: 10 }],
  ['Addon domains', '5', { websites: 5 }],
  ['Email accounts', '100', { email_accounts: 100 }],
  ['email_accounts', 'unlimited', { email_accounts: U }],
  ['Mailboxes', '10 mailboxes', { email_accounts: 10 }],
  ['E-mail', '25 accounts', { email_accounts: 25 }],
  ['Email', 'None', { email_accounts: 0 }],
  ['Web space', '10 GB', { disk_gb: 10 }],
  ['Webspace', 'Unlimited', { disk_gb: U }],
  ['Storage', '50 GB SSD', { disk_gb: 50, disk_type: 'ssd' }],
  ['WordPress sites', '2', { websites: 2 }],
  ['POP3 accounts', '50', { email_accounts: 50 }],
  // Keys outside the vocabulary
  ['Location', 'Frankfurt', {}],
  ['OS', 'Ubuntu 22.04', {}],
  ['Control panel', 'cPanel', {}],
  ['Backups', 'Daily', {}],
  ['Virtualization', 'KVM', {}],
  ['__proto__', '4 GB', {}],
  ['GPU', 'NVIDIA RTX 4000', {}],
  ['DDoS', 'yes', {}],
  ['SLA', '99.9%', {}],
];

describe("readSpec: providers' keys and values onto the vocabulary", () => {
  it('has at least 150 realistic pairs', () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(150);
  });
  it.each(PAIRS)('%s: %s', (key, value, expected) => {
    const read = readSpec(key, value);
    // disk sizes are read as disk_gb and storage_gb alike; the family keeps one
    const { storage_gb: storage, ...rest } = read;
    if (rest.disk_gb !== undefined) expect(storage).toBe(rest.disk_gb);
    expect(rest).toEqual(expected);
  });
});

describe('normalizeSpecs', () => {
  it('keeps the keys of the category family', () => {
    const specs = { RAM: '4 GB', Disk: '50 GB SSD', Websites: '3', Slots: '20' };
    expect(normalizeSpecs(specs, 'vps_cloud')).toEqual({ ram_gb: 4, disk_gb: 50, disk_type: 'ssd' });
    expect(normalizeSpecs(specs, 'web_shared')).toEqual({ storage_gb: 50, disk_type: 'ssd', websites: 3 });
    expect(normalizeSpecs(specs, 'game_minecraft')).toEqual({
      ram_gb: 4,
      disk_gb: 50,
      disk_type: 'ssd',
      player_slots: 20,
    });
  });
  it('takes the first key that gives a value', () => {
    expect(normalizeSpecs({ Memory: '4 GB', ram_gb: '8' }, 'dedicated')).toEqual({ ram_gb: 4 });
    expect(normalizeSpecs({ Memory: 'lots', ram_gb: '8' }, 'dedicated')).toEqual({ ram_gb: 8 });
  });
  it('reads nothing from no specs', () => {
    expect(normalizeSpecs(null, 'vps_cloud')).toEqual({});
    expect(normalizeSpecs({}, 'vps_cloud')).toEqual({});
  });
  it('knows the families of the seeded categories', () => {
    expect(['vps_cloud', 'vps_managed', 'dedicated', 'dedicated_gpu', 'colocation'].map(specFamily)).toEqual(
      Array(5).fill('server'),
    );
    expect(['game_minecraft', 'game_rust', 'voice_teamspeak'].map(specFamily)).toEqual(Array(3).fill('game'));
    expect(['web_shared', 'web_wordpress', 'web_reseller'].map(specFamily)).toEqual(Array(3).fill('web'));
    expect(['storage', 'email', 'ssl'].map(specFamily)).toEqual(Array(3).fill('other'));
  });
  it('formats values for people', () => {
    expect(formatSpecValue('port_mbps', 1000)).toBe('1 Gbit/s');
    expect(formatSpecValue('bandwidth_tb', U)).toBe('Unlimited');
    expect(formatSpecValue('bandwidth_tb', 0.5)).toBe('500 GB');
    expect(formatSpecValue('ram_gb', 4)).toBe('4 GB');
    expect(formatSpecValue('disk_gb', 2000)).toBe('2 TB');
    expect(formatSpecValue('disk_type', 'nvme')).toBe('NVMe');
  });
});
