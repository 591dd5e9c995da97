-- Verified freshness: when a host's billing system last confirmed its catalogue, i.e. its last applied sync. Kept
-- on the host's row (written by the run's own INSERT, under the row lock the sync already holds), so that the
-- directory's searches can leave out stale hosts with the join they already make. Hosts that synced before this
-- get the moment of their last applied run.
ALTER TABLE hosts ADD COLUMN confirmed_at timestamptz;
UPDATE hosts h SET confirmed_at = (SELECT max(r.applied_at) FROM sync_runs r WHERE r.host_id = h.id AND NOT r.dry_run);

-- Price history. A product's current prices are its row; each time a sync changes them (price, pricing tiers, setup
-- fee or currency), the prices it replaces are kept here with the span they were in effect, by the statement that
-- writes the change. A created product writes nothing: its first point is its row. NULL prices_since means "since
-- the product was created".
ALTER TABLE products ADD COLUMN prices_since timestamptz;

CREATE TABLE price_history (
  host_id            bigint NOT NULL,
  product_id         text NOT NULL,
  -- when these prices were replaced, and by which sync
  replaced_at        timestamptz NOT NULL,
  sync_id            text NOT NULL,
  -- since when they were in effect
  valid_from         timestamptz NOT NULL,
  price              numeric,
  currency           text NOT NULL,
  setup_fee          numeric,
  pricing_tiers      json,
  monthly_price      numeric,
  -- the monthly price and currency that replaced them: a drop is new_monthly_price < monthly_price, same currency
  new_monthly_price  numeric,
  new_currency       text NOT NULL,
  PRIMARY KEY (host_id, product_id, replaced_at, sync_id)
);
-- Feeds of price drops read the newest changes first; a search for products whose price dropped since a day starts
-- from the changes made since then.
CREATE INDEX price_history_replaced ON price_history (replaced_at);

-- The directory's change feed reads applied runs that changed something in the order of the transactions that wrote
-- them: a run's transaction id (xid8, never wraps), the column's default, taken as the run's row is inserted. A
-- reader only takes runs of transactions older than every transaction still running (its snapshot's xmin), so a
-- run that commits later always sorts after the reader's cursor (README, "The change feed"). Runs recorded before
-- this share the migration's transaction id (a non-volatile default is computed once), in id order.
ALTER TABLE sync_runs ADD COLUMN change_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX sync_runs_changes ON sync_runs (change_xid, id)
  WHERE NOT dry_run AND created + updated + reactivated + deactivated > 0;
