// When a watch is told: mail at most once an hour (the first change after a quiet hour at once, later ones gathered),
// webhooks retried with exponential backoff for a day, then turned off.

/** A watch's mail: at most one message in this time. */
export const DIGEST_GAP_SECONDS = 3600;
/** How often each process looks for what is due (mail and webhooks). */
export const WATCH_POLL_MS = 5_000;
/** How long a confirmation link works; an unconfirmed watch (and its address) is deleted after it. */
export const CONFIRM_TTL_SECONDS = 24 * 3600;
/** A webhook delivery is retried for this long after its event, then the watch is turned off. */
export const WEBHOOK_GIVE_UP_SECONDS = 24 * 3600;
const FIRST_RETRY_SECONDS = 30;
const LONGEST_RETRY_SECONDS = 3 * 3600;

/** When a watch's next message may go: now if it has had none for a whole gap, else a gap after the last. */
export function nextDigestAt(lastSentAt: Date | null, gapSeconds: number): Date | null {
  return lastSentAt === null ? null : new Date(lastSentAt.getTime() + gapSeconds * 1000);
}

/** Seconds before the next delivery of an event that failed `attempts` times: 30 s, 1 min, 2 min, … at most 3 h. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(LONGEST_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1));
}

/** Whether an event that failed again at `now` is given up (and its watch turned off). */
export function givenUp(occurredAt: Date, now: Date, giveUpSeconds: number): boolean {
  return now.getTime() - occurredAt.getTime() >= giveUpSeconds * 1000;
}
