// What a watch is told: the kinds of event (one row each: adding a kind is a row here and its branch in the
// matching's SQL, migration 070's match_watch_changes), the digest mail that gathers them and the webhook's JSON.
import { createHash } from 'node:crypto';
import { manageToken } from './tokens.js';

export interface WatchEvent {
  id: string;
  kind: WatchEventKind;
  occurred_at: string;
  product: {
    id: string;
    name: string;
    host: string;
    host_name: string;
    category: string;
    url: string;
  } | null;
  product_id: string;
  /** the product's monthly price as sent, and its currency */
  monthly_price: number | null;
  currency: string;
  /** the monthly price converted into EUR, before and after (before: price drops only) */
  base_monthly_price: number | null;
  previous_base_monthly_price: number | null;
}

export const WATCH_EVENT_KINDS = {
  matched: {
    type: 'product.matched',
    heading: 'New matches',
    line: (event: WatchEvent) => `${productName(event)} now matches${priceText(event)}`,
  },
  price_dropped: {
    type: 'product.price_dropped',
    heading: 'Cheaper now',
    line: (event: WatchEvent) =>
      `${productName(event)} costs less: ${eur(event.previous_base_monthly_price)} → ${eur(event.base_monthly_price)} a month (in EUR)${priceText(event)}`,
  },
  back_in_stock: {
    type: 'product.back_in_stock',
    heading: 'Back in stock',
    line: (event: WatchEvent) => `${productName(event)} can be ordered again${priceText(event)}`,
  },
} as const satisfies Record<string, { type: string; heading: string; line: (event: WatchEvent) => string }>;

export type WatchEventKind = keyof typeof WATCH_EVENT_KINDS;

export function isWatchEventKind(kind: string): kind is WatchEventKind {
  return Object.hasOwn(WATCH_EVENT_KINDS, kind);
}

function productName(event: WatchEvent): string {
  return event.product ? `${event.product.name} (${event.product.host_name})` : event.product_id;
}

function priceText(event: WatchEvent): string {
  return event.monthly_price === null ? '' : ` — ${event.monthly_price.toFixed(2)} ${event.currency} a month`;
}

function eur(value: number | null): string {
  return value === null ? '?' : `€${value.toFixed(2)}`;
}

export interface DigestParts {
  /** what is watched, as a visitor reads it: "the search category=vps&country=DE" or "the plan Cloud S" */
  watched: string;
  events: readonly WatchEvent[];
  /** the page of the watched search or plan */
  pageUrl: string;
  unsubscribeUrl: string;
}

/** The digest mail: one message for every event gathered since the last, grouped by kind. */
export function digestMail(parts: DigestParts): { subject: string; text: string } {
  const count = parts.events.length;
  const subject = `hostdir: ${count} change${count === 1 ? '' : 's'} to ${parts.watched}`;
  const lines = [`Changes to ${parts.watched} on hostdir:`, ''];
  for (const [kind, about] of Object.entries(WATCH_EVENT_KINDS)) {
    const ofKind = parts.events.filter((event) => event.kind === kind);
    if (ofKind.length === 0) continue;
    lines.push(`${about.heading}:`);
    for (const event of ofKind) {
      lines.push(`- ${about.line(event)}`);
      if (event.product) lines.push(`  ${event.product.url}`);
    }
    lines.push('');
  }
  lines.push(`See them all: ${parts.pageUrl}`, '', `Stop these messages (one click): ${parts.unsubscribeUrl}`);
  return { subject, text: lines.join('\n') + '\n' };
}

/**
 * The digest's Message-ID: the same for the same watch and events, so that a digest sent again (the mail server took
 * it but its answer was lost, or the process died before it wrote the digest down as sent) carries the id of the
 * first, and a mail system can drop the copy. More events gathered meanwhile make another message, and another id.
 */
export function digestMessageId(baseUrl: string, watchId: string, events: readonly Pick<WatchEvent, 'id'>[]): string {
  const ids = events.map((event) => event.id).sort();
  const digest = createHash('sha256')
    .update(`${watchId}\n${ids.join('\n')}`)
    .digest('hex')
    .slice(0, 40);
  return `<digest.${digest}@${new URL(baseUrl).hostname}>`;
}

/** The webhook's body for one event (its id is the webhook-id header too). */
export function webhookPayload(
  event: WatchEvent,
  watch: { id: string; search: string | null; product_id: string | null },
) {
  return {
    type: WATCH_EVENT_KINDS[event.kind].type,
    timestamp: event.occurred_at,
    data: {
      event_id: event.id,
      watch_id: watch.id,
      search: watch.search,
      watched_product_id: watch.product_id,
      product_id: event.product_id,
      product: event.product,
      monthly_price: event.monthly_price,
      currency: event.currency,
      base_monthly_price: event.base_monthly_price,
      previous_base_monthly_price: event.previous_base_monthly_price,
    },
  };
}

/** What a watch watches, in words and as its page. */
export function watchedOf(baseUrl: string, watch: { search: string | null; product_id: string | null }) {
  return watch.product_id !== null
    ? { words: `the plan ${watch.product_id}`, page: `${baseUrl}/products/${encodeURIComponent(watch.product_id)}` }
    : { words: `the search ${watch.search || '(everything)'}`, page: `${baseUrl}/search?${watch.search ?? ''}` };
}

export function unsubscribeUrl(baseUrl: string, key: Buffer, watchId: string): string {
  return `${baseUrl}/watches/unsubscribe?token=${manageToken(key, watchId)}`;
}
