-- Which exchange rates the directory prices at. A server keeps the rates (and the currencies left unconverted) it
-- read last, and a search's own statement reads this version beside its rows: a page read at another version has
-- its rates read again, so that a rates import from any process shows on the next page without every page reading
-- the rates. Every statement that changes exchange_rates moves the version on, under this row's lock, in its own
-- transaction: a reader sees the new version exactly when it sees the new rates.
CREATE TABLE exchange_rates_version (
  only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version   bigint NOT NULL
);
INSERT INTO exchange_rates_version (version) VALUES (1);

CREATE FUNCTION move_exchange_rates_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE exchange_rates_version SET version = version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER exchange_rates_move_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON exchange_rates
  FOR EACH STATEMENT EXECUTE FUNCTION move_exchange_rates_version();
