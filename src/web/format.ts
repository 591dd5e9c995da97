// How prices, periods and dates read on the pages.
import { periodLabel as periodAfterPrice, type CanonicalPeriod } from '../catalog/billing-periods.js';
import { COUNTRY_LABELS, foldKey } from '../catalog/gazetteer.js';
import { keptAnswers } from '../catalog/kept.js';
import type { PricingTier } from '../catalog/types.js';

const PERIOD_LABEL: Record<CanonicalPeriod, string> = {
  hourly: 'Hourly',
  daily: 'Daily',
  weekly: 'Weekly',
  monthly: 'Monthly',
  quarterly: 'Quarterly',
  semiannually: 'Every 6 months',
  annually: 'Yearly',
  biennially: 'Every 2 years',
  triennially: 'Every 3 years',
  one_time: 'One-time',
};

/** What follows a tier's price: "per month"; nothing for a period the directory does not know (its label says it). */
export function periodSuffix(tier: Pick<PricingTier, 'canonical_period'>): string {
  return tier.canonical_period === null ? '' : periodAfterPrice(tier.canonical_period);
}

/** "Monthly", "Every 6 months"; a period the directory does not know, exactly as the provider sent it. */
export function periodLabel(tier: Pick<PricingTier, 'period' | 'canonical_period'>): string {
  return tier.canonical_period === null ? tier.period : PERIOD_LABEL[tier.canonical_period];
}

/** What the directory shows for a product that has no price. */
export const PRICE_ON_REQUEST = 'Price on request';

/** Each currency's format (a plain number for a code Intl refuses as a currency). */
const formats = keptAnswers(1_000, (currency: string) => {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency, maximumFractionDigits: 4 });
  } catch {
    return new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
  }
});

/**
 * Prices as formatted, by "CUR amount": a page shows the same few prices many times, and Intl formats slowly. One
 * bound for every currency together, so that catalogues in many currencies keep no more than one in a single one.
 */
const formattedPrices = keptAnswers(4_000, (key: string) => {
  const space = key.indexOf(' ');
  return formats(key.slice(0, space)).format(Number(key.slice(space + 1)));
});

/** "$4.99", "€12.00": one locale (en) for every currency, so that a page of mixed currencies reads consistently. */
export function formatPrice(amount: number, currency: string): string {
  // -0 is printed with its sign, and its text reads back as 0.
  return Object.is(amount, -0) ? formats(currency).format(amount) : formattedPrices(`${currency} ${amount}`);
}

const DURATION_UNIT: Record<string, [string, string]> = {
  D: ['day', 'days'],
  W: ['week', 'weeks'],
  M: ['month', 'months'],
  Y: ['year', 'years'],
};

/** "P12M" → "12 months"; "none" → "No minimum term". */
export function formatDuration(duration: string): string {
  if (duration === 'none') return 'No minimum term';
  const match = /^P(\d+)([DWMY])$/.exec(duration);
  if (!match) return duration;
  const n = Number(match[1]);
  const [one, many] = DURATION_UNIT[match[2]!]!;
  return `${n} ${n === 1 ? one : many}`;
}

// One formatter each, made once: toLocaleString and toLocaleDateString make a new Intl formatter on every call, which
// cost a product page (five dates) more CPU than everything else it does.
const DATES = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
const COUNTS = new Intl.NumberFormat('en');

/** "Mar 5, 2026" (in UTC); a text that is no instant, as it is. */
export function formatDate(isoDate: string): string {
  const date = new Date(isoDate);
  return Number.isNaN(date.getTime()) ? isoDate : DATES.format(date);
}

/** "1,234". */
export function formatCount(count: number): string {
  return COUNTS.format(count);
}

// Words billing systems abbreviate in spec keys, spelled as people read them.
const SPEC_WORDS: Record<string, string> = {
  cpu: 'CPU',
  gpu: 'GPU',
  ram: 'RAM',
  ssd: 'SSD',
  nvme: 'NVMe',
  ip: 'IP',
  ipv4: 'IPv4',
  ipv6: 'IPv6',
  php: 'PHP',
  sla: 'SLA',
  tld: 'TLD',
  s3: 'S3',
  dns: 'DNS',
  whmcs: 'WHMCS',
  cpanel: 'cPanel',
};
const SPEC_UNITS: Record<string, string> = { gb: 'GB', tb: 'TB', mb: 'MB', gbit: 'Gbit/s', mbit: 'Mbit/s' };

/** Spec keys as labelled: a page labels the same few keys on every card. */
const keptLabels = keptAnswers(2_000, (key: string) => labelOf(key));

/** "cpu_cores" → "CPU cores", "ram_gb" → "RAM (GB)": spec keys arrive as billing systems name them. */
export function specLabel(key: string): string {
  return keptLabels(key);
}

function labelOf(key: string): string {
  const words = key.split(/[_\s-]+/).filter(Boolean);
  if (words.length === 0) return key;
  const unit = words.length > 1 ? SPEC_UNITS[words.at(-1)!.toLowerCase()] : undefined;
  const named = (unit ? words.slice(0, -1) : words).map((word) => SPEC_WORDS[word.toLowerCase()] ?? word);
  const first = named[0]!;
  named[0] = first === first.toLowerCase() ? first.charAt(0).toUpperCase() + first.slice(1) : first;
  return unit ? `${named.join(' ')} (${unit})` : named.join(' ');
}

/** "3 h ago", "12 min ago", "5 days ago": how long before `now` an instant was, in its largest whole unit. */
export function formatAgo(isoDate: string, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(isoDate)) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return `${days} days ago`;
}

/** A datacenter location as the gazetteer placed it (store/directory/listed-product.ts's ListedPlace). */
export interface NamedPlace {
  location: string;
  city: string | null;
  country: string | null;
}

/**
 * "Frankfurt, Germany": a location by its city and country wherever the directory names one; "de-1, Germany" when
 * only its country is known; as listed when the gazetteer does not know it.
 */
export function placeLabel(place: NamedPlace): string {
  if (place.country === null) return place.location;
  const country = COUNTRY_LABELS.get(place.country) ?? place.country;
  if (place.city !== null) return `${place.city}, ${country}`;
  const alone = foldKey(place.location);
  return alone === foldKey(country) || alone === place.country.toLowerCase()
    ? country
    : `${place.location}, ${country}`;
}
