// Comparable specs: the vocabulary of each category family, and the pure parser that maps the keys and values
// providers send ("Memory": "4 GB", "RAM (GB)": "2", "ram": "4096 MB", "Traffic": "20 TB", "Port": "1 Gbit/s") onto
// it. The raw specs stay as sent; what this returns is stored beside them, for filters, sorting and comparing. How a
// key is read is in spec-keys.ts, how sizes, counts and rates are read from a value in spec-values.ts.
import { readSpecKey } from './spec-keys.js';
import {
  CPU_COUNT,
  EMAIL_COUNT,
  IPV4_COUNT,
  SITE_COUNT,
  SLOT_COUNT,
  UNLIMITED_WORDS,
  countOf,
  isRate,
  rateInMbps,
  sizeInGb,
  tidy,
} from './spec-values.js';

/**
 * Raised whenever the parser or the vocabulary changes what it returns for some input: products stored with an older
 * version are derived again when a server starts (store/derived.ts), since an unchanged product is never rewritten.
 */
export const SPECS_VERSION = 1;

/** The numeric keys of the vocabulary, each with its unit. */
export const NUMERIC_SPECS = {
  cpu_cores: { label: 'CPU cores', unit: '' },
  ram_gb: { label: 'RAM', unit: 'GB' },
  disk_gb: { label: 'Disk', unit: 'GB' },
  bandwidth_tb: { label: 'Traffic', unit: 'TB' },
  port_mbps: { label: 'Port', unit: 'Mbit/s' },
  ipv4: { label: 'IPv4 addresses', unit: '' },
  player_slots: { label: 'Player slots', unit: '' },
  storage_gb: { label: 'Storage', unit: 'GB' },
  websites: { label: 'Websites', unit: '' },
  email_accounts: { label: 'Email accounts', unit: '' },
} as const;
export type NumericSpec = keyof typeof NUMERIC_SPECS;
export const NUMERIC_SPEC_KEYS = Object.keys(NUMERIC_SPECS) as NumericSpec[];

export const DISK_TYPES = ['nvme', 'ssd', 'hdd'] as const;
export type DiskType = (typeof DISK_TYPES)[number];

export type SpecKey = NumericSpec | 'disk_type';

/**
 * What "unlimited" / "unmetered" is stored as: larger than any real figure, so that it passes every minimum, fails
 * every maximum and sorts last in ascending order. Shown as "Unlimited", never as the number.
 */
export const UNLIMITED = 1_000_000_000;

/** Normalized specs: the vocabulary's keys a product's specs could be read as. */
export type ComparableSpecs = Partial<Record<NumericSpec, number>> & { disk_type?: DiskType };

export type SpecFamily = 'server' | 'game' | 'web' | 'other';

export const FAMILY_SPECS: Record<SpecFamily, readonly SpecKey[]> = {
  server: ['cpu_cores', 'ram_gb', 'disk_gb', 'disk_type', 'bandwidth_tb', 'port_mbps', 'ipv4'],
  game: ['player_slots', 'ram_gb', 'cpu_cores', 'disk_gb', 'disk_type'],
  web: ['storage_gb', 'websites', 'email_accounts', 'disk_type', 'bandwidth_tb'],
  other: [
    'cpu_cores',
    'ram_gb',
    'disk_gb',
    'disk_type',
    'bandwidth_tb',
    'port_mbps',
    'ipv4',
    'player_slots',
    'storage_gb',
    'websites',
    'email_accounts',
  ],
};

/**
 * The family of a category slug, from the registry's naming: vps_*, dedicated*, colocation and cloud* are servers;
 * game_* and voice_* game servers; web_* web hosting. Any other category (storage, email, an operator's own) reads
 * every key of the vocabulary.
 */
export function specFamily(category: string): SpecFamily {
  if (/^(vps|dedicated|colocation|cloud|server|bare)/.test(category)) return 'server';
  if (/^(game|voice)/.test(category)) return 'game';
  if (/^web/.test(category)) return 'web';
  return 'other';
}

function diskTypeOf(text: string): DiskType | null {
  if (/nvme|nvm\b/i.test(text)) return 'nvme';
  if (/\bssd|solid[\s-]?state/i.test(text)) return 'ssd';
  if (/\bhdd|\bsata\b(?!.*ssd)|\bsas\b|hard (disk|drive)|spinning/i.test(text)) return 'hdd';
  return null;
}

const YES = /^\s*(yes|true|included|inclusive|ja|y)\s*$/i;
const NO = /^\s*(no|none|false|0|nein|n\/a|-)\s*$/i;

// ---------------------------------------------------------------------------------------------- parsing

type Readings = Partial<Record<SpecKey, number | DiskType>>;

/** What one key and value say about the vocabulary (several keys at once for "Disk: 2x 1TB NVMe"). */
export function readSpec(key: string, value: string): Readings {
  const reading = readSpecKey(key);
  if (!reading) return {};
  const text = String(value).trim();
  if (text === '') return {};
  const out: Readings = {};
  const unlimited = UNLIMITED_WORDS.test(text);
  switch (reading.concept) {
    case 'cpu': {
      const n = countOf(text, CPU_COUNT);
      if (n !== null && n > 0 && n <= 1024) out.cpu_cores = n;
      break;
    }
    case 'ram': {
      if (unlimited) break;
      const size = sizeInGb(text, reading.unit, (n) => (n >= 256 ? 'mb' : 'gb'));
      if (size?.gb) out.ram_gb = size.gb;
      break;
    }
    case 'disk':
    case 'disk_nvme':
    case 'disk_ssd':
    case 'disk_hdd': {
      const type = reading.concept === 'disk' ? diskTypeOf(text) : (reading.concept.slice(5) as DiskType);
      if (type) out.disk_type = diskTypeOf(text) ?? type;
      if (unlimited) {
        out.disk_gb = UNLIMITED;
        out.storage_gb = UNLIMITED;
        break;
      }
      const size = sizeInGb(text, reading.unit, () => 'gb');
      if (size?.gb) {
        out.disk_gb = size.gb;
        out.storage_gb = size.gb;
      }
      break;
    }
    case 'disk_type': {
      const type = diskTypeOf(text);
      if (type) out.disk_type = type;
      break;
    }
    case 'traffic': {
      if (isRate(text)) {
        const rate = rateInMbps(text, null);
        if (rate) out.port_mbps = rate;
        if (unlimited) out.bandwidth_tb = UNLIMITED;
        break;
      }
      if (unlimited) {
        out.bandwidth_tb = UNLIMITED;
        break;
      }
      // Traffic without a unit is in TB (nobody sells 20 GB of traffic as a bare "20" … but "traffic_gb" says so).
      const size = sizeInGb(text, reading.unit, () => 'tb');
      if (size?.gb) out.bandwidth_tb = tidy(size.gb / 1000);
      break;
    }
    case 'port': {
      const rate = rateInMbps(text, reading.unit);
      if (rate) out.port_mbps = rate;
      if (unlimited && /traffic|bandwidth/i.test(text)) out.bandwidth_tb = UNLIMITED;
      break;
    }
    case 'ipv4': {
      if (/ipv6/i.test(key) && !/ipv4/i.test(key)) break;
      if (YES.test(text)) out.ipv4 = 1;
      else if (NO.test(text)) out.ipv4 = 0;
      else {
        const subnet = /\/(2[4-9]|3[0-2])\b/.exec(text);
        const n = subnet ? 2 ** (32 - Number(subnet[1])) : countOf(text, IPV4_COUNT);
        if (n !== null && n <= 65536) out.ipv4 = n;
      }
      break;
    }
    case 'slots': {
      if (unlimited) out.player_slots = UNLIMITED;
      else {
        const n = countOf(text, SLOT_COUNT);
        if (n !== null && n > 0) out.player_slots = n;
      }
      break;
    }
    case 'websites': {
      if (unlimited) out.websites = UNLIMITED;
      else {
        const n = countOf(text, SITE_COUNT);
        if (n !== null) out.websites = n;
      }
      break;
    }
    case 'email': {
      if (unlimited) out.email_accounts = UNLIMITED;
      else if (NO.test(text)) out.email_accounts = 0;
      else {
        const n = countOf(text, EMAIL_COUNT);
        if (n !== null) out.email_accounts = n;
      }
      break;
    }
  }
  return out;
}

/**
 * A product's specs read as the vocabulary of its category's family. The first key that gives a value for a
 * vocabulary key wins (providers who send both "RAM" and "ram_gb" send the same figure twice).
 */
export function normalizeSpecs(specs: Readonly<Record<string, string>> | null, category: string): ComparableSpecs {
  const out: Readings = {};
  if (!specs) return {};
  const allowed = FAMILY_SPECS[specFamily(category)];
  for (const key of Object.keys(specs)) {
    const readings = readSpec(key, specs[key]!);
    for (const name of Object.keys(readings) as SpecKey[]) {
      if (out[name] === undefined && allowed.includes(name)) out[name] = readings[name]!;
    }
  }
  return out as ComparableSpecs;
}

/** A normalized value as people read it: "4 GB", "1 Gbit/s", "Unlimited", "NVMe". */
export function formatSpecValue(key: SpecKey, value: number | string): string {
  if (key === 'disk_type') return value === 'nvme' ? 'NVMe' : String(value).toUpperCase();
  const n = Number(value);
  if (n >= UNLIMITED) return 'Unlimited';
  if (key === 'port_mbps') return n >= 1000 ? `${tidy(n / 1000)} Gbit/s` : `${n} Mbit/s`;
  if (key === 'ram_gb' || key === 'disk_gb' || key === 'storage_gb')
    return n >= 1000 && n % 100 === 0 ? `${n / 1000} TB` : `${n} GB`;
  if (key === 'bandwidth_tb') return n < 1 ? `${tidy(n * 1000)} GB` : `${n} TB`;
  return String(n);
}

/** Labels of the vocabulary's keys, for tables and filters. */
export const SPEC_LABELS: Record<SpecKey, string> = {
  ...Object.fromEntries(NUMERIC_SPEC_KEYS.map((key) => [key, NUMERIC_SPECS[key].label])),
  disk_type: 'Disk type',
} as Record<SpecKey, string>;

/** Words a product's normalized specs add to its search text: "nvme", "ssd", "unmetered", "ram", "16gb", "4core". */
export function specWords(specs: ComparableSpecs): string[] {
  const words: string[] = [];
  if (specs.disk_type) words.push(specs.disk_type);
  if (specs.bandwidth_tb !== undefined && specs.bandwidth_tb >= UNLIMITED) words.push('unmetered', 'unlimited');
  if (specs.ipv4 !== undefined && specs.ipv4 > 0) words.push('ipv4');
  if (specs.ram_gb !== undefined) words.push('ram');
  // Each size as one token, for a search of "16 GB" or "4 cores" (catalog/search-terms.ts) to find.
  const size = (value: number | undefined, unit: string) => {
    if (value !== undefined && Number.isInteger(value) && value > 0 && value < UNLIMITED)
      words.push(sizeToken(value, unit));
  };
  for (const gigabytes of [specs.ram_gb, specs.disk_gb, specs.storage_gb]) {
    size(gigabytes, 'gb');
    // 1000 GB is shown, and asked for, as 1 TB.
    if (gigabytes !== undefined && gigabytes % 1000 === 0) size(gigabytes / 1000, 'tb');
  }
  size(specs.bandwidth_tb, 'tb');
  size(specs.port_mbps, 'mbit');
  if (specs.port_mbps !== undefined && specs.port_mbps % 1000 === 0) size(specs.port_mbps / 1000, 'gbit');
  size(specs.cpu_cores, 'core');
  size(specs.player_slots, 'slot');
  return [...new Set(words)];
}

/** A size as one search token: its number and its unit's own form ("16gb", "1gbit", "4core"). */
export const sizeToken = (amount: number, unit: string) => `${amount}${unit}`;
