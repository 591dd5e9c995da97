// How figures are read from a spec's value: sizes with their units, counts of a named thing, network rates, and the
// words that mean unlimited.

export const UNLIMITED_WORDS = /\b(unlimited|unmetered|unlimitiert|unbegrenzt|infinite|no limit|fair use|flat)\b|∞/i;

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
export function tidy(n: number): number {
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
export function sizeInGb(value: string, keyUnit: string | null, bareUnit: (n: number) => string): Size | null {
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

export const CPU_COUNT = counted('v?cores?|v?cpus?|vcores?|c\\b|kerne|threads?');
export const IPV4_COUNT = counted('x?\\s*(?:ipv4|ips?|addresses|address|dedicated)');
export const SLOT_COUNT = counted('slots?|players?|spieler|users?');
export const SITE_COUNT = counted('websites?|sites?|domains?');
export const EMAIL_COUNT = counted('e-?mail accounts?|accounts?|mailboxes|mailbox|e-?mails?|addresses');

/** A count: "4", "4 vCPU", "8 cores / 16 threads" (cores), "AMD EPYC (4 cores)", "2 x 8 cores" (16). */
export function countOf(value: string, named: RegExp | null): number | null {
  if (named) {
    const match = named.exec(value);
    if (match) return Number(match[2]) * (match[1] ? Number(match[1]) : 1);
  }
  const bare = /^\s*(\d+(?:[.,]\d+)?)\s*$/.exec(value);
  if (bare) return parseNumber(bare[1]!);
  return null;
}

/** A rate in Mbit/s: "1 Gbit/s", "1Gbps", "10 GbE", "100 Mbit", "1000 Mbps", "1 Gb/s"; a bare number takes the key's unit or Mbit/s. */
export function rateInMbps(value: string, keyUnit: string | null): number | null {
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
export function isRate(value: string): boolean {
  return /\d\s*(g|m|k)?(bit\/?s|bits\/s|bps|b\/s|bit\b|be\b)|\d\s*(gigabit|megabit)/i.test(value);
}
