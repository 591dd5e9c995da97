-- Receipts (src/catalog/receipts.ts): for each host, the digest, fingerprint, id and external_id of every product
-- of its last large catalogue, as one text of a line per product, with the context they were validated under.
CREATE TABLE sync_receipts (
  host_id    bigint PRIMARY KEY REFERENCES hosts (id),
  context    text NOT NULL,
  receipts   text NOT NULL,
  -- the sync that wrote them: a sync that read them before it took the host's lock knows whether they changed since
  written_by text NOT NULL,
  -- whether the host's products are exactly what the receipts describe (each of them active, with its fingerprint
  -- and id, and no other product active). Every applied sync leaves it true or false, under the host's lock.
  current    boolean NOT NULL
);
-- Digests do not compress: the text is stored out of line as it is, without trying.
ALTER TABLE sync_receipts ALTER COLUMN receipts SET STORAGE EXTERNAL;
