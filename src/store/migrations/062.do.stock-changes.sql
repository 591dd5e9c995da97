-- A plan selling out (its stock becoming 0) or coming back (its stock leaving 0), each kept with the sync that did it,
-- written by the statement that writes the changed products (store/price-history.ts), in the sync's transaction: the
-- change feed tells them after the run's other changes, and a search's Atom feed reads the newest.
CREATE TABLE stock_changes (
  host_id     bigint NOT NULL,
  product_id  text NOT NULL,
  sync_id     text NOT NULL,
  changed_at  timestamptz NOT NULL,
  event       text NOT NULL CHECK (event IN ('sold_out', 'restocked')),
  -- the stock it came back with; null when it is no longer tracked (0 for a sell-out)
  stock       integer,
  PRIMARY KEY (host_id, sync_id, product_id)
);
CREATE INDEX stock_changes_changed ON stock_changes (changed_at);
