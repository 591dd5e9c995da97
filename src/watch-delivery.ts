// Each server process matches the products syncs changed with the watches (a batch of notes at a time, out of the
// syncs' way) and delivers what watches are due: digest mails (at most one an hour per watch) and webhook
// events (signed per Standard Webhooks, retried with backoff for a day). Whichever process claims a row delivers it;
// the claim is a lease, so a process that dies mid-delivery leaves the row to another (at least once, same event id).
import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Mailer } from './mail/mailer.js';
import { OutboundRefusedError, requestOutbound } from './net/outbound.js';
import type { Queryable } from './store/db.js';
import {
  claimDueDigests,
  claimDueWebhooks,
  deleteUnconfirmedWatches,
  digestSent,
  matchWatchChanges,
  releaseDigest,
  webhookDelivered,
  webhookFailed,
  type DueDigest,
  type DueWebhook,
} from './store/watches.js';
import { digestMail, digestMessageId, unsubscribeUrl, watchedOf, webhookPayload } from './watches/events.js';
import { givenUp, retryDelaySeconds, WEBHOOK_GIVE_UP_SECONDS } from './watches/schedule.js';
import { webhookSecret } from './watches/tokens.js';

/** Rows claimed per round, and how long a claim lasts: longer than one delivery's time limit. */
const CLAIM_LIMIT = 20;
const LEASE_SECONDS = 60;
/**
 * Notes of changed products matched per statement, and statements per round at most: a batch of 1 000 products each
 * met by some 190 of 100 000 watches (190 000 events) takes about 5 s on two cores, far from the statement's limit.
 */
export const MATCH_BATCH = 1_000;
const MATCH_BATCHES_PER_ROUND = 20;
/** A receiver has this long to answer; its answer's body is read up to this size and dropped. */
const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_MAX_BYTES = 64 * 1024;

export interface WatchDelivery {
  db: Queryable;
  mailer: Mailer;
  /** the key watch secrets derive from (watches/tokens.ts) */
  key: Buffer;
  /** the directory's public address, for the links in mails ('' until the server listens) */
  baseUrl: () => string;
  allowPrivateTargets: boolean;
  digestGapSeconds: number;
  pollMs: number;
  log: FastifyBaseLogger;
}

/** Delivers every `pollMs` until stopped; a round that fails is logged and the next one tries again. */
export function keepDeliveringWatches(delivery: WatchDelivery): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const round = async () => {
    try {
      await deliverDueWatches(delivery);
    } catch (error) {
      if (!stopped) delivery.log.warn({ err: error }, 'delivering watches failed; trying again');
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round().finally(schedule);
    }, delivery.pollMs);
    timer.unref();
  };
  running = round().finally(schedule);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** One round: changed products matched, expired confirmations deleted, due digests mailed, due webhooks sent. */
export async function deliverDueWatches(delivery: WatchDelivery): Promise<void> {
  const { db } = delivery;
  const baseUrl = delivery.baseUrl();
  for (let batch = 0; batch < MATCH_BATCHES_PER_ROUND; batch++) {
    if ((await matchWatchChanges(db, MATCH_BATCH)) < MATCH_BATCH) break;
  }
  await deleteUnconfirmedWatches(db);
  if (!baseUrl) return;
  const digests = await claimDueDigests(db, {
    gapSeconds: delivery.digestGapSeconds,
    leaseSeconds: LEASE_SECONDS,
    limit: CLAIM_LIMIT,
    baseUrl,
  });
  for (const digest of digests) await sendDigest(delivery, digest);
  const webhooks = await claimDueWebhooks(db, { leaseSeconds: LEASE_SECONDS, limit: CLAIM_LIMIT, baseUrl });
  await Promise.all(webhooks.map((due) => sendWebhook(delivery, due)));
}

async function sendDigest(delivery: WatchDelivery, { watch, events }: DueDigest): Promise<void> {
  const baseUrl = delivery.baseUrl();
  const unsubscribe = unsubscribeUrl(baseUrl, delivery.key, watch.id);
  const watched = watchedOf(baseUrl, watch);
  const mail = digestMail({ watched: watched.words, events, pageUrl: watched.page, unsubscribeUrl: unsubscribe });
  try {
    await delivery.mailer.send({
      to: watch.email,
      ...mail,
      unsubscribeUrl: unsubscribe,
      messageId: digestMessageId(baseUrl, watch.id, events),
    });
  } catch (error) {
    delivery.log.warn({ err: error, watch: watch.id }, 'a watch digest could not be sent; trying again');
    await releaseDigest(delivery.db, watch.id);
    return;
  }
  await digestSent(
    delivery.db,
    watch.id,
    events.map((event) => event.id),
  );
}

async function sendWebhook(delivery: WatchDelivery, due: DueWebhook): Promise<void> {
  const { watch, event } = due;
  const body = JSON.stringify(webhookPayload(event, watch));
  const signer = new Webhook(webhookSecret(delivery.key, watch.id));
  const timestamp = new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signer.sign(event.id, timestamp, body),
  };
  let failure: string;
  try {
    const answer = await requestOutbound(watch.webhook_url, {
      allowPrivate: delivery.allowPrivateTargets,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      maxBytes: WEBHOOK_MAX_BYTES,
      method: 'POST',
      headers,
      body,
    });
    if (answer.status >= 200 && answer.status < 300) {
      await webhookDelivered(delivery.db, watch.id, event.id);
      return;
    }
    failure = `the receiver answered ${answer.status}`;
  } catch (error) {
    failure =
      error instanceof OutboundRefusedError
        ? `refused: ${error.message}`
        : `no answer: ${error instanceof Error ? error.message : String(error)}`;
  }
  await webhookFailed(delivery.db, {
    watchId: watch.id,
    eventId: event.id,
    error: failure,
    retrySeconds: retryDelaySeconds(due.attempts),
    giveUp: givenUp(new Date(event.occurred_at), new Date(), WEBHOOK_GIVE_UP_SECONDS),
  });
}
