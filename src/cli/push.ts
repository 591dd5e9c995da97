// `hostdir push`: a provider's side. Sends a catalogue file gzip-compressed under one Idempotency-Key and retries
// that same key until it has an answer, so that a lost answer is recovered instead of applied twice.
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { gzipSync } from 'node:zlib';
import { EXIT } from './exit-codes.js';
import { formatTable } from './format.js';

export interface PushOptions {
  file: string;
  /** the catalogue file's text */
  catalogue: string;
  apiKey: string;
  baseUrl: string;
  dryRun: boolean;
  json: boolean;
  /** false: a 429 ends the command instead of waiting for Retry-After */
  wait: boolean;
  /** attempts after network errors, 5xx and 409 (default 7: 1+2+4+8+16+30 s apart) */
  maxAttempts?: number;
  /** with json: added to the printed answer as "import" (what `push --from` read from the billing system) */
  importReport?: object;
}

export interface PushIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stderrIsTTY: boolean;
  sleep: (ms: number) => Promise<void>;
}

/** Tries after a network error, a 5xx or a 409 (our own earlier attempt still running): 1+2+4+8+16+30 s apart. */
const DEFAULT_MAX_ATTEMPTS = 7;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** 429 answers waited out before giving up (each waits Retry-After, up to the window length). */
const MAX_RATE_LIMIT_WAITS = 3;
const REQUEST_TIMEOUT_MS = 180_000;
const PROGRESS_ALWAYS_BYTES = 1024 * 1024;
const UPLOAD_CHUNK = 64 * 1024;

export class PushUsageError extends Error {}

/** `{"products": [...]}` or a bare array of products, as the JSON text to send. */
export function catalogueBody(text: string, file: string): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PushUsageError(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (Array.isArray(parsed)) return Buffer.from(JSON.stringify({ products: parsed }));
  if (typeof parsed === 'object' && parsed !== null && 'products' in parsed) return Buffer.from(text);
  throw new PushUsageError(`${file} must hold {"products": [...]} or an array of products`);
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

function send(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  onProgress: (sent: number) => void,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      timeout: REQUEST_TIMEOUT_MS,
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('aborted', () => reject(new Error('the connection closed before the answer was complete')));
      response.on('end', () => {
        if (!response.complete) reject(new Error('the connection closed before the answer was complete'));
        else
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
      });
    });
    // Written in chunks so that progress can be shown and a server that answers early (401, 429) is not flooded.
    let offset = 0;
    const writeMore = () => {
      while (offset < body.length) {
        const end = Math.min(offset + UPLOAD_CHUNK, body.length);
        const more = request.write(body.subarray(offset, end));
        offset = end;
        onProgress(offset);
        if (!more) {
          request.once('drain', writeMore);
          return;
        }
      }
      request.end();
    };
    writeMore();
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return error.message || code || error.name;
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

interface SyncAnswerBody {
  sync_id: string;
  dry_run: boolean;
  host: string;
  summary: Record<string, number>;
  applied_at: string;
  duration_ms: number;
}

export function summaryText(answer: SyncAnswerBody): string {
  const rows = Object.entries(answer.summary).map(([action, count]) => ({ action, count }));
  const table = formatTable<{ action: string; count: number }>(
    [
      { header: 'ACTION', value: (r) => r.action },
      { header: 'PRODUCTS', value: (r) => String(r.count), align: 'right' },
    ],
    rows,
  );
  const what = answer.dry_run ? 'Dry run (nothing changed)' : 'Synced';
  return `${what}: ${answer.host}, ${answer.sync_id} at ${answer.applied_at} in ${answer.duration_ms} ms\n\n${table}`;
}

export async function push(options: PushOptions, io: PushIo): Promise<number> {
  const url = new URL(`${options.baseUrl}/api/v1/sync/products${options.dryRun ? '?dry_run=true' : ''}`);
  const body = gzipSync(catalogueBody(options.catalogue, options.file));
  const idempotencyKey = randomUUID();
  const headers = {
    authorization: `Bearer ${options.apiKey}`,
    'content-type': 'application/json',
    'content-encoding': 'gzip',
    'idempotency-key': idempotencyKey,
    accept: 'application/json, application/problem+json',
  };
  const showProgress = io.stderrIsTTY || body.length > PROGRESS_ALWAYS_BYTES;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let attempts = 0;
  let rateLimitWaits = 0;
  let lastFailure = '';
  let lastWasNetwork = false;

  while (attempts < maxAttempts) {
    attempts++;
    let shownTenth = -1;
    const progress = (sent: number) => {
      if (!showProgress) return;
      const tenth = Math.floor((sent / body.length) * 10);
      if (tenth === shownTenth) return;
      shownTenth = tenth;
      const line = `uploading ${megabytes(sent)} of ${megabytes(body.length)} (gzip), ${tenth * 10}%`;
      io.stderr(io.stderrIsTTY ? `\r${line}${sent === body.length ? '\n' : ''}` : `${line}\n`);
    };

    let answer: Answer;
    try {
      answer = await send(url, headers, body, progress);
    } catch (error) {
      lastFailure = describe(error);
      lastWasNetwork = true;
      if (attempts < maxAttempts) await retryLater(io, attempts, `no answer (${lastFailure})`);
      continue;
    }

    const problem = parse(answer.text);
    if (answer.status === 200) {
      if (answer.headers['idempotent-replayed'] === 'true') {
        io.stderr('The server had already applied this upload (an earlier answer was lost); this is its answer.\n');
      }
      io.stdout(
        options.json
          ? `${JSON.stringify(withImportReport(problem, options), null, 2)}\n`
          : `${summaryText(problem as unknown as SyncAnswerBody)}\n`,
      );
      return EXIT.ok;
    }
    if (answer.status === 429) {
      const seconds = Math.max(1, Number(answer.headers['retry-after']) || 1);
      if (!options.wait || rateLimitWaits >= MAX_RATE_LIMIT_WAITS) {
        io.stderr(
          `error: rate limited: this provider's sync window is full; try again in ${seconds} s (RATE_LIMITED, HTTP 429)\n`,
        );
        return EXIT.rateLimited;
      }
      rateLimitWaits++;
      attempts--;
      io.stderr(`rate limited: waiting ${seconds} s for the sync window, then sending again\n`);
      await io.sleep(seconds * 1000);
      continue;
    }
    if (answer.status >= 500 || answer.status === 409) {
      lastFailure = `${String(problem.code ?? `HTTP ${answer.status}`)}: ${String(problem.detail ?? '')}`;
      lastWasNetwork = false;
      if (attempts < maxAttempts) await retryLater(io, attempts, lastFailure);
      continue;
    }
    return refused(answer, problem, options, io);
  }
  io.stderr(`error: gave up after ${maxAttempts} attempts; last: ${lastFailure}\n`);
  return lastWasNetwork ? EXIT.unreachable : EXIT.refused;
}

async function retryLater(io: PushIo, attempt: number, why: string): Promise<void> {
  const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  io.stderr(`${why}; retrying in ${delay / 1000} s with the same Idempotency-Key\n`);
  await io.sleep(delay);
}

/** The answer with the import report beside what the server said, when there is one. */
function withImportReport(answer: Record<string, unknown>, options: PushOptions): Record<string, unknown> {
  return options.importReport === undefined ? answer : { ...answer, import: options.importReport };
}

function refused(answer: Answer, problem: Record<string, unknown>, options: PushOptions, io: PushIo): number {
  if (options.json) {
    // An answer that is not a JSON object is printed as it came.
    const parsed = options.importReport !== undefined && Object.keys(problem).length > 0;
    io.stdout(parsed ? `${JSON.stringify(withImportReport(problem, options), null, 2)}\n` : `${answer.text}\n`);
  }
  const code = String(problem.code ?? `HTTP_${answer.status}`);
  const detail = String(problem.detail ?? problem.title ?? 'the server refused the catalogue');
  const lines = [`error: ${detail} (${code}, HTTP ${answer.status})`];
  if (Array.isArray(problem.errors)) {
    for (const entry of problem.errors as Record<string, unknown>[]) {
      lines.push(
        `  ${String(entry.pointer ?? entry.parameter ?? '')} ${String(entry.code ?? '')} ${String(entry.detail ?? '')}`,
      );
    }
    if (problem.truncated === true) lines.push('  … and more (only the first 100 problems are listed)');
  }
  io.stderr(`${lines.join('\n')}\n`);
  return EXIT.refused;
}
