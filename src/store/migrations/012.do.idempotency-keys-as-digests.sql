-- Idempotency-Keys are kept as the SHA-256 of the key as sent (hex), never the key itself: a secret pasted into the
-- header by mistake is not stored. Keys kept before this are hashed in place, so their retries still find them.
UPDATE idempotency_keys SET key = encode(sha256(convert_to(key, 'UTF8')), 'hex');
