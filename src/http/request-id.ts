// X-Request-Id: the caller's if it is sane, else a fresh req_ id; echoed on every response and in the log.
import type { IncomingMessage } from 'node:http';
import { newId } from '../catalog/ids.js';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;
/** An API key or admin token sent by mistake as a request id: never echoed, stored or logged. */
const SECRET = /(?:rk|adm)_[0-9A-Za-z]{16}/i;

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE.test(given) && !SECRET.test(given) ? given : newId('req');
}
