// X-Request-Id: the caller's if it is sane, else a fresh req_ id; echoed on every response and in the log.
import type { IncomingMessage } from 'node:http';
import { newId } from '../catalog/ids.js';

const SANE = /^[A-Za-z0-9._:\-]{1,128}$/;

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE.test(given) ? given : newId('req');
}
