-- Receipts (src/sync/receipts.ts) in pieces of at most 1 024 lines, a row each, where they were one text per host:
-- a catalogue of 50 000 products has 6.5 MB of them, which PostgreSQL held several times over while it stored or
-- read the one value (on the embedded store, in a WebAssembly memory that never shrinks). sync_receipts keeps the
-- context, the writer and whether they are current; the receipts themselves are the pieces in order.
CREATE TABLE sync_receipt_pieces (
  host_id bigint NOT NULL REFERENCES sync_receipts (host_id) ON DELETE CASCADE,
  piece   integer NOT NULL,
  text    text NOT NULL,
  PRIMARY KEY (host_id, piece)
);
-- Digests do not compress: each piece is stored out of line as it is, without trying.
ALTER TABLE sync_receipt_pieces ALTER COLUMN text SET STORAGE EXTERNAL;

-- The receipts kept so far become their host's first piece. The column stays, empty, for a version before this one
-- still running while this one starts (it then finds no receipts, and validates in full); the next release drops it.
INSERT INTO sync_receipt_pieces (host_id, piece, text) SELECT host_id, 0, receipts FROM sync_receipts WHERE receipts <> '';
ALTER TABLE sync_receipts ALTER COLUMN receipts DROP NOT NULL;
UPDATE sync_receipts SET receipts = NULL;
