// What each outcome of the sync service (src/sync) answers over HTTP: status, headers and problem, for the answers
// sent and for those an Idempotency-Key keeps. routes/sync.ts calls these; nothing else of the endpoint decides them.
import type { StoredAnswer } from '../sync/idempotency.js';
import type { Admission, SyncAnswers, SyncOutcome } from '../sync/service.js';
import { secondsUntilFree, type Window, type WindowLimits, type WindowUsage } from '../sync/window.js';
import { JSON_TYPE, Problem, PROBLEM_TYPE, problemBody, retryAfter } from './problems.js';

/** The headers every authenticated answer of the endpoint carries. */
export const WINDOW_HEADERS = ['ratelimit', 'ratelimit-policy'] as const;

/** RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers) of a window as used. */
export function windowHeaders(
  { name, max, seconds }: Pick<Window, 'max' | 'seconds'> & { name: string },
  usage: WindowUsage,
) {
  return {
    'ratelimit-policy': `"${name}";q=${max};w=${seconds}`,
    ratelimit: `"${name}";r=${Math.max(0, max - usage.used)};t=${usage.freesInSeconds}`,
  };
}

function rateLimited(window: Window, usage: WindowUsage): Problem {
  const wait = secondsUntilFree(usage);
  const detail = `at most ${window.max} ${window.dryRun ? 'dry run' : 'applied sync'}(s) per ${window.seconds} s; retry in ${wait} s`;
  return new Problem('RATE_LIMITED', detail, { headers: { ...windowHeaders(window, usage), ...retryAfter(wait) } });
}

/** Past its budget of refusals (413, 415, 422), a host is refused before anything of its request is read. */
export function tooManyRefused(limits: WindowLimits, refusals: WindowUsage): Problem {
  const [max, seconds, wait] = [limits.refusedMaxPerWindow, limits.syncWindowSeconds, secondsUntilFree(refusals)];
  return new Problem(
    'RATE_LIMITED',
    `${max} refused requests (413, 415, 422) from this provider in ${seconds} s; fix the catalogue and retry in ${wait} s`,
    {
      headers: {
        ...retryAfter(wait),
        ...windowHeaders({ name: 'refused', max, seconds }, { used: max, freesInSeconds: wait }),
      },
    },
  );
}

/** A request turned away before its body is read. */
export function refusalOf(admission: Admission): Problem | null {
  if (admission.verdict === 'key_in_use')
    return new Problem(
      'IDEMPOTENCY_KEY_IN_USE',
      'a request with this Idempotency-Key is still being processed; retry shortly for its answer',
    );
  if (admission.verdict === 'rate_limited') return rateLimited(admission.window, admission.caller.usage);
  return null;
}

/** What each outcome of a sync answers: the answer to send, or the problem to throw. */
export function answerTo(outcome: SyncOutcome, lockTimeoutMs: number): StoredAnswer | Problem {
  switch (outcome.kind) {
    case 'applied':
      return outcome.usage
        ? { ...outcome.answer, headers: { ...windowHeaders(outcome.window, outcome.usage), ...outcome.answer.headers } }
        : outcome.answer;
    case 'replayed':
      return { ...outcome.answer, headers: { ...outcome.answer.headers, 'idempotent-replayed': 'true' } };
    case 'refused':
      return outcome.answer;
    case 'rate_limited':
      return rateLimited(outcome.window, outcome.usage);
    case 'key_reused':
      return new Problem(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was used for another request; use a new key for a new catalogue',
      );
    case 'key_in_use':
      return new Problem(
        'IDEMPOTENCY_KEY_IN_USE',
        'another request took over this Idempotency-Key; nothing was changed',
      );
    case 'revoked':
      return new Problem('KEY_REVOKED', 'the API key was revoked or its provider suspended');
    case 'busy':
      // Another sync of this host has held the host for LOCK_TIMEOUT_MS; it will most likely take the slot.
      return new Problem('RATE_LIMITED', 'another sync of this host is still being applied; nothing was changed', {
        headers: retryAfter(lockTimeoutMs / 1000),
      });
    case 'overloaded':
      return new Problem('SERVICE_UNAVAILABLE', 'too many syncs are waiting on this server; nothing was changed', {
        headers: retryAfter(),
      });
    case 'unavailable':
      return new Problem('SERVICE_UNAVAILABLE', 'the database is unreachable; nothing was changed', {
        headers: retryAfter(),
      });
    case 'outcome_unknown':
      return new Problem(
        'SERVICE_UNAVAILABLE',
        'the connection to the database was lost while this sync was being committed, and whether it was applied could not be found out yet. ' +
          'To learn it, send the same request again with the same Idempotency-Key (its answer is replayed if it was applied), ' +
          `or look for sync_id ${outcome.syncId} in GET /api/v1/sync/runs`,
        { headers: retryAfter(), sync_id: outcome.syncId, outcome: 'unknown' },
      );
  }
}

/** Answers as a retry with the same Idempotency-Key gets them back, byte for byte. */
export const syncAnswers: SyncAnswers = {
  applied: (answer) => ({ status: 200, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(answer) }),
  refused: ({ errors, truncated, notJson }, request) => {
    const detail = notJson
      ? 'the body is not valid JSON'
      : `${truncated ? `more than ${errors.length}` : errors.length} problem(s) in the payload; nothing was changed`;
    const refusal = new Problem('VALIDATION_FAILED', detail, { errors, ...(truncated ? { truncated: true } : {}) });
    return {
      status: refusal.status,
      headers: { 'content-type': PROBLEM_TYPE },
      body: JSON.stringify(problemBody(refusal, request.instance, request.id)),
    };
  },
};
