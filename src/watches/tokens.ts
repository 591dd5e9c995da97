// A watch's secrets, none of them stored: its management token (the unsubscribe link's, and the API's) and its
// webhook secret are each an HMAC of the watch's id under a key the server holds (derived from the admin token); the
// confirmation token is random and kept only as its SHA-256. Changing the admin token changes every derived secret
// (docs/watches.md, "Rotating the key").
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const ID_DIGITS = 26;
const TOKEN = /^wtk_([0-9A-HJKMNP-TV-Z]{26})([0-9a-f]{32})$/;

/** The key every watch secret is derived from. */
export function watchKey(adminToken: string): Buffer {
  return createHmac('sha256', adminToken).update('hostdir watches v1').digest();
}

function mac(key: Buffer, purpose: string, watchId: string): Buffer {
  return createHmac('sha256', key).update(`${purpose}:${watchId}`).digest();
}

/** The token that shows, changes and ends a watch: `wtk_` + the id's 26 digits + 128 bits of its HMAC. */
export function manageToken(key: Buffer, watchId: string): string {
  return `wtk_${watchId.slice(-ID_DIGITS)}${mac(key, 'manage', watchId).subarray(0, 16).toString('hex')}`;
}

/** The watch a token manages, or null when it is not one this key made. */
export function watchOfToken(key: Buffer, token: string): string | null {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const watchId = `wch_${match[1]!}`;
  const expected = mac(key, 'manage', watchId).subarray(0, 16);
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')) ? watchId : null;
}

/** The webhook's signing secret, in the Standard Webhooks form: `whsec_` + base64 of 32 bytes. */
export function webhookSecret(key: Buffer, watchId: string): string {
  return `whsec_${mac(key, 'webhook', watchId).toString('base64')}`;
}

/** A new confirmation token, and the digest that is all the database keeps of it. */
export function newConfirmToken(): { token: string; digest: Buffer } {
  const token = `wcf_${randomBytes(24).toString('hex')}`;
  return { token, digest: confirmDigest(token) };
}

export function confirmDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
