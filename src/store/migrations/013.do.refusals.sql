-- Refused sync requests (413, 415, 422) of each host, for the budget of refusals per window (REFUSED_MAX_PER_WINDOW):
-- refusals do not use up the sync slot, so that a typo can be fixed and sent again at once, but they cannot be
-- unlimited. Kept in the database so that every server process counts the same refusals; rows older than the
-- window are deleted as new ones are added, so a host never has more than about the budget of rows.
CREATE TABLE sync_refusals (
  host_id    bigint NOT NULL REFERENCES hosts (id),
  refused_at timestamptz NOT NULL
);
CREATE INDEX sync_refusals_by_host ON sync_refusals (host_id, refused_at);
