-- Each running server process keeps a row here fresh (a heartbeat every few seconds). An Idempotency-Key claim
-- names the process that holds it, so that the claim of a process that died (SIGKILL, a crash, a lost machine) is
-- free again seconds later, when its heartbeat stops, rather than after IDEMPOTENCY_LEASE_SECONDS. Unlike a
-- session advisory lock, this works through PgBouncer in transaction mode.
CREATE TABLE server_instances (
  id         text PRIMARY KEY,
  started_at timestamptz NOT NULL,
  seen_at    timestamptz NOT NULL
);
ALTER TABLE idempotency_keys ADD COLUMN instance text;
