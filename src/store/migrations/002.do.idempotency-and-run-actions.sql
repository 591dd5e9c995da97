-- What each run did to each product, for GET /api/v1/sync/runs/{sync_id}: one compact text per run, written by
-- the run's own INSERT (format in src/store/sync-runs.ts). NULL for runs recorded before this column existed.
ALTER TABLE sync_runs ADD COLUMN actions text;

-- Idempotency-Key claims, per host. A claim is 'running' while its request is processed (other requests with the
-- key get 409) and 'done' once the answer is stored, which for an applied sync happens in the sync's own
-- transaction. A 'running' claim whose lease has passed was left by a process that died; it may be taken over.
CREATE TABLE idempotency_keys (
  host_id           bigint NOT NULL REFERENCES hosts (id),
  key               text NOT NULL CHECK (key ~ '^[!-~]{1,255}$'),
  status            text NOT NULL CHECK (status IN ('running', 'done')),
  -- a random token of the request holding the claim: only it may complete or release it
  claim             text NOT NULL,
  lease_until       timestamptz NOT NULL,
  -- SHA-256 of the request (dry-run flag and decoded body bytes); set when the answer is stored
  fingerprint       text,
  response_status   integer,
  response_headers  json,
  response_body     text,
  created_at        timestamptz NOT NULL,
  expires_at        timestamptz NOT NULL,
  PRIMARY KEY (host_id, key),
  CHECK (status = 'running' OR (fingerprint IS NOT NULL AND response_status IS NOT NULL AND response_body IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
