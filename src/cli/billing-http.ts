// HTTP calls to a provider's billing system (WHMCS, Blesta, HostBill) for `hostdir push --from` and
// `hostdir import`: a timeout on every call, a bounded answer, a few retries when the system does not answer or
// answers 5xx/429, no redirects followed (a POST would lose its body, and credentials must not go to another
// address), and every message stripped of the credentials before anyone sees it.
import { htmlToLine } from '../connectors/html-text.js';

/** The billing system could not be read: unreachable, refused the credentials, or answered something unexpected. */
export class BillingSystemError extends Error {}

export interface BillingHttp {
  /** the billing system's name, for messages ("WHMCS") */
  system: string;
  fetch: typeof fetch;
  timeoutMs: number;
  /** every credential: none of them may appear in a message */
  secrets: readonly string[];
  sleep: (ms: number) => Promise<void>;
  /** told before each retry */
  onRetry: (message: string) => void;
}

export interface BillingRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  /** a form (application/x-www-form-urlencoded) */
  form?: Record<string, string>;
}

export interface BillingAnswer {
  status: number;
  contentType: string;
  text: string;
  /** the parsed body, or undefined when it is not JSON */
  json: unknown;
  /** where a redirect points, as it may be shown */
  location?: string;
}

/** Tries per call: the first and two retries, 1 s and 2 s apart. */
const MAX_ATTEMPTS = 3;
const RETRY_BASE_MS = 1_000;
/** A product list is megabytes at most; an answer past this is not one. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** How much of an answer that is not JSON is quoted in a message. */
const QUOTED_CHARACTERS = 200;

/** The text with every secret (as written and as URL-encoded) replaced by [redacted]. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
    ])) {
      out = out.split(form).join('[redacted]');
    }
  }
  return out;
}

/** A value with every string in it redacted (a JSON report of names and messages quoting the billing system). */
export function redactStrings<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactStrings(item, secrets)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, secrets)])) as T;
  }
  return value;
}

/** An address as it may be shown: without user name, password, query or fragment. */
export function displayUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  shown.search = '';
  shown.hash = '';
  return shown.href;
}

/** One call, retried while the billing system does not answer or answers 5xx or 429. */
export async function callBillingSystem(http: BillingHttp, request: BillingRequest): Promise<BillingAnswer> {
  const where = `${http.system} at ${displayUrl(request.url)}`;
  const fail = (message: string) => new BillingSystemError(redact(message, http.secrets));
  for (let attempt = 1; ; attempt++) {
    let answer: BillingAnswer;
    try {
      answer = await send(http, request);
    } catch (error) {
      if (error instanceof BillingSystemError) throw fail(`${where}: ${error.message}`);
      const why = failureOf(error, http.timeoutMs);
      if (attempt >= MAX_ATTEMPTS) throw fail(`no answer from ${where} after ${attempt} attempts: ${why}`);
      await retry(http, attempt, `no answer from ${where} (${why})`);
      continue;
    }
    if (answer.status >= 300 && answer.status < 400) {
      throw fail(
        `${where} redirects (HTTP ${answer.status}) to ${answer.location ?? 'another address'}; give that address instead`,
      );
    }
    if ((answer.status >= 500 || answer.status === 429) && attempt < MAX_ATTEMPTS) {
      await retry(http, attempt, `${where} answered HTTP ${answer.status}`);
      continue;
    }
    return answer;
  }
}

async function retry(http: BillingHttp, attempt: number, why: string): Promise<void> {
  const delay = RETRY_BASE_MS * 2 ** (attempt - 1);
  http.onRetry(redact(`${why}; trying again in ${delay / 1000} s\n`, http.secrets));
  await http.sleep(delay);
}

async function send(http: BillingHttp, request: BillingRequest): Promise<BillingAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body: string | undefined;
  if (request.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  }
  const signal = AbortSignal.timeout(http.timeoutMs);
  const response = await http.fetch(request.url, { method: request.method, headers, body, redirect: 'manual', signal });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const location = response.headers.get('location');
    return {
      status: response.status,
      contentType: '',
      text: '',
      json: undefined,
      ...(location === null ? {} : { location: safeLocation(location, request.url) }),
    };
  }
  const text = await readBounded(response);
  const contentType = response.headers.get('content-type') ?? '';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType, text, json };
}

function safeLocation(location: string, base: URL): string {
  try {
    return displayUrl(new URL(location, base));
  } catch {
    return 'an address that is not a URL';
  }
}

async function readBounded(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new BillingSystemError(
        `the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, which no product list is`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function failureOf(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code === undefined ? cause.message : `${code}${cause.message.includes(code) ? '' : `: ${cause.message}`}`;
  }
  return error.message || error.name;
}

/** A message for an answer that is not the JSON the billing system should give, quoting the start of it. */
export function unexpectedAnswer(
  http: BillingHttp,
  url: URL,
  answer: BillingAnswer,
  expected: string,
): BillingSystemError {
  const quoted = htmlToLine(answer.text.slice(0, 4 * QUOTED_CHARACTERS)).slice(0, QUOTED_CHARACTERS);
  const what = answer.json === undefined ? 'something that is not JSON' : 'JSON of another shape';
  return new BillingSystemError(
    redact(
      `${http.system} at ${displayUrl(url)} answered HTTP ${answer.status}${answer.contentType ? ` (${answer.contentType})` : ''} ` +
        `with ${what}, not ${expected}${quoted ? `: "${quoted}"` : ''}`,
      http.secrets,
    ),
  );
}
