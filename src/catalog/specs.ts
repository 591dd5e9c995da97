// Comparable specs: the vocabulary of each category family, and the pure parser that maps the keys and values
// providers send ("Memory": "4 GB", "RAM (GB)": "2", "ram": "4096 MB", "Traffic": "20 TB", "Port": "1 Gbit/s") onto
// it. The raw specs stay as sent; what this returns is stored beside them, for filters, sorting and comparing.
import { keptAnswers } from './kept.js';

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

// ------------------------------------------------------------------------------------------------ keys

/** A key's words, lower case, without punctuation: "RAM (GB)" → ["ram", "gb"], "trafficTB" → ["traffic", "tb"]. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Units a key may carry ("ram_mb", "Traffic (TB)", "port_gbps"): the unit its bare numbers are in. */
const KEY_UNITS: Record<string, string> = {
  kb: 'kb',
  mb: 'mb',
  gb: 'gb',
  tb: 'tb',
  pb: 'pb',
  mib: 'mb',
  gib: 'gb',
  tib: 'tb',
  mbps: 'mbps',
  gbps: 'gbps',
  mbit: 'mbps',
  gbit: 'gbps',
  mbits: 'mbps',
  gbits: 'gbps',
};

type Concept =
  | 'cpu'
  | 'ram'
  | 'disk'
  | 'disk_nvme'
  | 'disk_ssd'
  | 'disk_hdd'
  | 'disk_type'
  | 'traffic'
  | 'port'
  | 'ipv4'
  | 'slots'
  | 'websites'
  | 'email';

/** Phrases of key words (after units are taken off) and what they name; the longest phrase found wins. */
const KEY_PHRASES: [string, Concept][] = [
  ['cpu', 'cpu'],
  ['cpus', 'cpu'],
  ['vcpu', 'cpu'],
  ['vcpus', 'cpu'],
  ['cores', 'cpu'],
  ['core', 'cpu'],
  ['vcores', 'cpu'],
  ['vcore', 'cpu'],
  ['cpu cores', 'cpu'],
  ['cpu core', 'cpu'],
  ['processor', 'cpu'],
  ['processors', 'cpu'],
  ['threads', 'cpu'],
  ['virtual cpu', 'cpu'],
  ['virtual cores', 'cpu'],
  ['cpu count', 'cpu'],
  ['num cpu', 'cpu'],
  ['cores count', 'cpu'],
  ['ram', 'ram'],
  ['memory', 'ram'],
  ['mem', 'ram'],
  ['ram memory', 'ram'],
  ['system memory', 'ram'],
  ['guaranteed ram', 'ram'],
  ['ddr4', 'ram'],
  ['ddr5', 'ram'],
  ['arbeitsspeicher', 'ram'],
  ['memory size', 'ram'],
  ['ram size', 'ram'],
  ['disk', 'disk'],
  ['disks', 'disk'],
  ['disk space', 'disk'],
  ['storage', 'disk'],
  ['drive', 'disk'],
  ['drives', 'disk'],
  ['disk size', 'disk'],
  ['storage space', 'disk'],
  ['space', 'disk'],
  ['web space', 'disk'],
  ['webspace', 'disk'],
  ['hard drive', 'disk'],
  ['hdd space', 'disk_hdd'],
  ['ssd space', 'disk_ssd'],
  ['ssd storage', 'disk_ssd'],
  ['nvme storage', 'disk_nvme'],
  ['nvme space', 'disk_nvme'],
  ['ssd', 'disk_ssd'],
  ['nvme', 'disk_nvme'],
  ['hdd', 'disk_hdd'],
  ['nvme ssd', 'disk_nvme'],
  ['ssd disk', 'disk_ssd'],
  ['nvme disk', 'disk_nvme'],
  ['speicher', 'disk'],
  ['festplatte', 'disk'],
  ['disk type', 'disk_type'],
  ['storage type', 'disk_type'],
  ['drive type', 'disk_type'],
  ['traffic', 'traffic'],
  ['bandwidth', 'traffic'],
  ['transfer', 'traffic'],
  ['data transfer', 'traffic'],
  ['monthly traffic', 'traffic'],
  ['traffic volume', 'traffic'],
  ['egress', 'traffic'],
  ['outbound traffic', 'traffic'],
  ['port', 'port'],
  ['port speed', 'port'],
  ['uplink', 'port'],
  ['network', 'port'],
  ['network speed', 'port'],
  ['nic', 'port'],
  ['connection', 'port'],
  ['network port', 'port'],
  ['link speed', 'port'],
  ['anbindung', 'port'],
  ['ipv4', 'ipv4'],
  ['ipv4 addresses', 'ipv4'],
  ['ipv4 address', 'ipv4'],
  ['ip', 'ipv4'],
  ['ips', 'ipv4'],
  ['ip addresses', 'ipv4'],
  ['dedicated ip', 'ipv4'],
  ['ipv4 ips', 'ipv4'],
  ['ip address', 'ipv4'],
  ['slots', 'slots'],
  ['slot', 'slots'],
  ['player slots', 'slots'],
  ['players', 'slots'],
  ['max players', 'slots'],
  ['player', 'slots'],
  ['player count', 'slots'],
  ['max slots', 'slots'],
  ['user slots', 'slots'],
  ['voice slots', 'slots'],
  ['websites', 'websites'],
  ['website', 'websites'],
  ['sites', 'websites'],
  ['domains', 'websites'],
  ['domain', 'websites'],
  ['hosted domains', 'websites'],
  ['addon domains', 'websites'],
  ['number of websites', 'websites'],
  ['wordpress sites', 'websites'],
  ['email', 'email'],
  ['emails', 'email'],
  ['email accounts', 'email'],
  ['e mail', 'email'],
  ['e mail accounts', 'email'],
  ['mailboxes', 'email'],
  ['mailbox', 'email'],
  ['email addresses', 'email'],
  ['mail accounts', 'email'],
  ['pop3 accounts', 'email'],
];
const PHRASES = new Map(KEY_PHRASES);
/** Words that qualify a key without changing what it names ("Max RAM", "Included traffic", "Total disk"). */
const FILLER = new Set([
  'max',
  'maximum',
  'total',
  'included',
  'incl',
  'guaranteed',
  'dedicated',
  'amount',
  'of',
  'the',
  'size',
  'count',
  'number',
  'per',
  'month',
  'monthly',
  'mo',
  'allocated',
  'in',
]);

interface KeyReading {
  concept: Concept;
  unit: string | null;
}

/** Keys repeat across a catalogue (every plan says "RAM"): each is read once, up to 10 000 kept. */
const keptKeyReadings = keptAnswers(10_000, (key: string) => readKey(key));

/** What a key names and the unit it states, or null when it names nothing of the vocabulary. */
export function readSpecKey(key: string): KeyReading | null {
  return keptKeyReadings(key);
}

function readKey(key: string): KeyReading | null {
  const words = keyWords(key);
  let unit: string | null = null;
  const rest: string[] = [];
  for (const word of words) {
    const keyUnit = KEY_UNITS[word];
    if (keyUnit && rest.length > 0) unit = keyUnit;
    else rest.push(word);
  }
  if (rest.length === 0) return null;
  const phrase = rest.join(' ');
  const exact = PHRASES.get(phrase);
  if (exact) return { concept: exact, unit };
  const meaningful = rest.filter((word) => !FILLER.has(word) || PHRASES.has(word));
  const trimmed = meaningful.join(' ');
  const found = PHRASES.get(trimmed);
  if (found) return { concept: found, unit };
  // "ram_gb_guaranteed", "disk_nvme": the longest known phrase inside the words.
  for (let length = Math.min(3, meaningful.length); length >= 1; length--) {
    for (let start = 0; start + length <= meaningful.length; start++) {
      const concept = PHRASES.get(meaningful.slice(start, start + length).join(' '));
      if (concept) return { concept, unit };
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------- values

const UNLIMITED_WORDS = /\b(unlimited|unmetered|unlimitiert|unbegrenzt|infinite|no limit|fair use|flat)\b|∞/i;

/** "4 GB", "4096MB", "1,5 TB", "2x 1TB", "1.000 GB": size figures in a value, each with its unit (null: none given). */
const SIZE = /(?:(\d+)\s*[x×]\s*)?(\d+(?:[.,]\d+)*)\s*(kb|mb|gb|tb|pb|kib|mib|gib|tib|k|m|g|t)?\b/gi;

function parseNumber(text: string): number {
  // "1.000" / "1,000" (thousands) against "1.5" / "1,5" (decimals): three digits after one separator are thousands.
  if (/^\d{1,3}([.,]\d{3})+$/.test(text)) return Number(text.replace(/[.,]/g, ''));
  return Number(text.replace(',', '.'));
}

// Megabytes are counted as billing systems mean them, in 1024ths: 4096 MB of RAM is 4 GB, 512 MB half of one.
const TO_GB: Record<string, number> = {
  kb: 1 / 1_048_576,
  kib: 1 / 1_048_576,
  k: 1 / 1_048_576,
  mb: 1 / 1024,
  mib: 1 / 1024,
  m: 1 / 1024,
  gb: 1,
  gib: 1,
  g: 1,
  tb: 1000,
  tib: 1000,
  t: 1000,
  pb: 1_000_000,
};

interface Size {
  gb: number | null;
  /** the value's own unit, or null for a bare number */
  unit: string | null;
}

/** Sizes in a value, multiplied out ("2x 1TB" → 2000 GB); bare numbers are kept with unit null and gb as given. */
function sizes(value: string): { count: number; number: number; unit: string | null }[] {
  const found: { count: number; number: number; unit: string | null }[] = [];
  for (const match of value.matchAll(SIZE)) {
    const number = parseNumber(match[2]!);
    if (!Number.isFinite(number)) continue;
    found.push({ count: match[1] ? Number(match[1]) : 1, number, unit: match[3] ? match[3].toLowerCase() : null });
  }
  return found;
}

/** Rounds away binary-unit noise: 4096 MB → 4 GB (not 4.096), 1.5 TB → 1500 GB. */
function tidy(n: number): number {
  if (n >= 1) {
    const whole = Math.round(n);
    if (Math.abs(n - whole) / n < 0.03) return whole;
  }
  return Math.round(n * 1000) / 1000;
}

/**
 * A size in GB from a value and the key's unit. A bare number takes the key's unit; without one, `bareUnit` decides
 * (RAM: GB below 256, MB from 256 up, since no plan has 256 GB of RAM written as a bare "256"… except dedicated
 * servers, which write it with a unit).
 */
function sizeInGb(value: string, keyUnit: string | null, bareUnit: (n: number) => string): Size | null {
  const all = sizes(value).filter((size) => size.unit !== 'k' || /\d\s*k\b/i.test(value));
  if (all.length === 0) return null;
  const withUnit = all.filter((size) => size.unit !== null);
  // "2x 1TB NVMe + 2x 4TB HDD": every sized part adds up; otherwise the first number.
  if (withUnit.length > 0) {
    let gb = 0;
    for (const size of withUnit) gb += size.count * size.number * TO_GB[size.unit!]!;
    return { gb: tidy(gb), unit: withUnit[0]!.unit };
  }
  const first = all[0]!;
  const unit = keyUnit ?? bareUnit(first.number);
  const factor = TO_GB[unit];
  if (factor === undefined) return null;
  return { gb: tidy(first.count * first.number * factor), unit: null };
}

/** A pattern of "<n> <word>" (or "<m> x <n> <word>") for countOf, compiled once. */
function counted(words: string): RegExp {
  return new RegExp(`(?:(\\d+)\\s*[x×]\\s*)?(\\d+)\\s*-?\\s*(?:${words})`, 'i');
}

const CPU_COUNT = counted('v?cores?|v?cpus?|vcores?|c\\b|kerne|threads?');
const IPV4_COUNT = counted('x?\\s*(?:ipv4|ips?|addresses|address|dedicated)');
const SLOT_COUNT = counted('slots?|players?|spieler|users?');
const SITE_COUNT = counted('websites?|sites?|domains?');
const EMAIL_COUNT = counted('e-?mail accounts?|accounts?|mailboxes|mailbox|e-?mails?|addresses');

/** A count: "4", "4 vCPU", "8 cores / 16 threads" (cores), "AMD EPYC (4 cores)", "2 x 8 cores" (16). */
function countOf(value: string, named: RegExp | null): number | null {
  if (named) {
    const match = named.exec(value);
    if (match) return Number(match[2]) * (match[1] ? Number(match[1]) : 1);
  }
  const bare = /^\s*(\d+(?:[.,]\d+)?)\s*$/.exec(value);
  if (bare) return parseNumber(bare[1]!);
  return null;
}

function diskTypeOf(text: string): DiskType | null {
  if (/nvme|nvm\b/i.test(text)) return 'nvme';
  if (/\bssd|solid[\s-]?state/i.test(text)) return 'ssd';
  if (/\bhdd|\bsata\b(?!.*ssd)|\bsas\b|hard (disk|drive)|spinning/i.test(text)) return 'hdd';
  return null;
}

/** A rate in Mbit/s: "1 Gbit/s", "1Gbps", "10 GbE", "100 Mbit", "1000 Mbps", "1 Gb/s"; a bare number takes the key's unit or Mbit/s. */
function rateInMbps(value: string, keyUnit: string | null): number | null {
  const match = /(\d+(?:[.,]\d+)?)\s*(g|m|k)?\s*(?:bit\/?s|bits?\/?s|bit|bps|b\/s|be|bit per second)?/i.exec(value);
  const rate =
    /(\d+(?:[.,]\d+)?)\s*(gbit\/?s?|gbps|gb\/s|gbe|gigabit|g\b|gbit|mbit\/?s?|mbps|mb\/s|megabit|m\b|mbit|kbit\/?s?|kbps)/i.exec(
      value,
    );
  if (rate) {
    const n = parseNumber(rate[1]!);
    const unit = rate[2]!.toLowerCase();
    if (unit.startsWith('g')) return tidy(n * 1000);
    if (unit.startsWith('k')) return tidy(n / 1000);
    return tidy(n);
  }
  if (!match) return null;
  const bare = /^\s*(\d+(?:[.,]\d+)?)\s*$/.exec(value);
  if (!bare) return null;
  const n = parseNumber(bare[1]!);
  return keyUnit === 'gbps' ? tidy(n * 1000) : tidy(n);
}

/** Whether a value is a rate ("1 Gbit/s", "1Gbps"), which a "Bandwidth" key sometimes holds instead of a volume. */
function isRate(value: string): boolean {
  return /\d\s*(g|m|k)?(bit\/?s|bits\/s|bps|b\/s|bit\b|be\b)|\d\s*(gigabit|megabit)/i.test(value);
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
