-- A run's per-product actions (src/store/sync-runs.ts) past one piece of 1 024 lines, a row per piece, where they were
-- one text in the run's row: 2.2 MB for 50 000 products, which PostgreSQL held several times over while it stored the
-- one value (on the embedded store, in a WebAssembly memory that never shrinks). A run of up to 1 024 products keeps
-- its actions in sync_runs.actions as before (its INSERT writes them: no statement more for a small sync); a larger
-- run has NULL there and its actions here, in order.
CREATE TABLE sync_run_action_pieces (
  host_id bigint NOT NULL,
  sync_id text NOT NULL,
  piece   integer NOT NULL,
  text    text NOT NULL,
  PRIMARY KEY (host_id, sync_id, piece),
  FOREIGN KEY (host_id, sync_id) REFERENCES sync_runs (host_id, id) ON DELETE CASCADE
);
-- Each piece is about 45 KB, compressed as the runs' actions are (lz4 where the server has it; see migration 006).
DO $$
BEGIN
  ALTER TABLE sync_run_action_pieces ALTER COLUMN text SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;

-- A process of the version before reads a run's actions from its row only. Each process says whether it reads the
-- pieces; while one that does not is alive, a large run keeps its actions in its row as before (store/sync.ts), so
-- that starting new processes and then stopping the old ones loses nothing. Old processes' rows take the default.
ALTER TABLE server_instances ADD COLUMN reads_action_pieces boolean NOT NULL DEFAULT false;
