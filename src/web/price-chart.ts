// A product's monthly price over time as a small SVG drawn on the server: a step line (a price holds until a sync
// changes it), with a title and a description for assistive technology; the page puts a table of the same points
// beside it.
import { formatDate, formatPrice } from './format.js';
import { html, type Html } from './html.js';

export interface ChartPoint {
  /** ISO instants: since when, and until when (null: still) */
  from: string;
  to: string | null;
  monthly_price: number | null;
  currency: string;
}

const WIDTH = 320;
const HEIGHT = 140;
const LEFT = 64;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 24;

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * The chart of the points priced in `currency` (a price in another currency, or none, leaves a gap), from the first
 * point to `now`; null when no point has a monthly price in that currency.
 */
export function priceChart(
  points: readonly ChartPoint[],
  currency: string,
  now: string,
  id = 'price-chart',
): Html | null {
  const priced = points.filter(
    (p): p is ChartPoint & { monthly_price: number } => p.monthly_price !== null && p.currency === currency,
  );
  if (priced.length === 0) return null;
  const start = Date.parse(points[0]!.from);
  const end = Math.max(Date.parse(now), start + 1, ...points.map((p) => Date.parse(p.to ?? p.from)));
  const high = Math.max(...priced.map((p) => p.monthly_price));
  const low = Math.min(...priced.map((p) => p.monthly_price));
  // From zero, so that a small change looks small; a little room above the highest price.
  const top = high > 0 ? high * 1.15 : 1;
  const x = (instant: number) => round(LEFT + ((instant - start) / (end - start)) * (WIDTH - LEFT - RIGHT));
  const y = (price: number) => round(TOP + (1 - price / top) * (HEIGHT - TOP - BOTTOM));
  const segments: string[] = [];
  let previous: { x: number; y: number } | null = null;
  for (const point of points) {
    const from = x(Date.parse(point.from));
    const to = x(point.to === null ? end : Date.parse(point.to));
    if (point.monthly_price === null || point.currency !== currency) {
      previous = null;
      continue;
    }
    const level = y(point.monthly_price);
    // A step: down or up at the moment of the change, then level until the next.
    segments.push(previous && previous.x === from ? `L${from} ${level}H${to}` : `M${from} ${level}H${to}`);
    previous = { x: to, y: level };
  }
  const first = priced[0]!;
  const last = priced.at(-1)!;
  const title = `Monthly price over time, in ${currency}`;
  const description =
    priced.length === 1
      ? `${formatPrice(first.monthly_price, currency)} per month since ${formatDate(first.from)}, unchanged.`
      : `From ${formatPrice(first.monthly_price, currency)} on ${formatDate(first.from)} to ${formatPrice(last.monthly_price, currency)} now; ` +
        `lowest ${formatPrice(low, currency)}, highest ${formatPrice(high, currency)}, ${priced.length} prices.`;
  return html`<svg class="chart" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${title}</title>
<desc id="${id}-desc">${description}</desc>
<line x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH - RIGHT}" y2="${HEIGHT - BOTTOM}" stroke="#6b7380"/>
<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${HEIGHT - BOTTOM}" stroke="#6b7380"/>
<text x="${LEFT - 4}" y="${y(high) + 4}" text-anchor="end" font-size="11" fill="#1b1f24">${formatPrice(high, currency)}</text>
${low !== high ? html`<text x="${LEFT - 4}" y="${y(low) + 4}" text-anchor="end" font-size="11" fill="#1b1f24">${formatPrice(low, currency)}</text>` : ''}
<text x="${LEFT}" y="${HEIGHT - 6}" font-size="11" fill="#1b1f24">${formatDate(points[0]!.from)}</text>
<text x="${WIDTH - RIGHT}" y="${HEIGHT - 6}" text-anchor="end" font-size="11" fill="#1b1f24">${formatDate(new Date(end).toISOString())}</text>
<path d="${segments.join('')}" fill="none" stroke="#0a4fb3" stroke-width="2.5"/>
</svg>`;
}
