// HTTP/1.1 spoken over a bare socket, for what fetch will not send: wrong Content-Length, truncated or trickled
// bodies, garbage request lines.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  /** every complete response the server sent, in order */
  responses: RawResponse[];
  /** milliseconds from connecting until the server closed the connection (null: still open at the deadline) */
  closedAfterMs: number | null;
  /** bytes of the request the client managed to write before the server closed */
  written: number;
}

export interface RawOptions {
  /** pause between parts, in ms */
  gapMs?: number;
  /** half-close the connection after the last part */
  end?: boolean;
  /** give up (and destroy the socket) after this long */
  deadlineMs?: number;
}

/** Parses consecutive HTTP/1.1 responses with Content-Length bodies out of the bytes received. */
export function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const [statusLine = '', ...lines] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    if (bytes.length < bodyStart + length) break;
    responses.push({
      status: Number(match[1]),
      headers,
      body: bytes.subarray(bodyStart, bodyStart + length).toString('utf8'),
    });
    at = bodyStart + length;
  }
  return responses;
}

export function rawExchange(port: number, parts: (string | Buffer)[], options: RawOptions = {}): Promise<RawExchange> {
  const { gapMs = 0, end = false, deadlineMs = 10_000 } = options;
  return new Promise((resolve) => {
    const started = Date.now();
    const received: Buffer[] = [];
    let written = 0;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(port, '127.0.0.1');
    const done = (closedAfterMs: number | null) => {
      clearTimeout(timer);
      clearTimeout(deadline);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(received)), closedAfterMs, written });
    };
    const deadline = setTimeout(() => done(null), deadlineMs);
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => {
      // A reset after the server answered is how some refusals end; what was received is still parsed.
    });
    socket.on('close', () => {
      closed = true;
      done(Date.now() - started);
    });
    let next = 0;
    const sendNext = () => {
      if (closed) return;
      if (next >= parts.length) {
        if (end) socket.end();
        return;
      }
      const part = parts[next++]!;
      socket.write(part, () => {
        written += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      });
      timer = setTimeout(sendNext, gapMs);
    };
    socket.on('connect', sendNext);
  });
}

/** The head of a POST to the sync endpoint, with whatever Content-Length the caller claims. */
export function syncHead(key: string, contentLength: number | string | null, extra: string[] = []): string {
  return [
    'POST /api/v1/sync/products HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${key}`,
    'Content-Type: application/json',
    ...(contentLength === null ? [] : [`Content-Length: ${contentLength}`]),
    ...extra,
    '',
    '',
  ].join('\r\n');
}
