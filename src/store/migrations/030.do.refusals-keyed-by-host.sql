-- Every table that grows with the directory is keyed by its host first, so that it can be distributed by host
-- (README, "Beyond one PostgreSQL"). Refusals had no key at all: each gets a number of its own, after the host's id
-- (two refusals of one host may share a moment).
ALTER TABLE sync_refusals ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE sync_refusals ADD PRIMARY KEY (host_id, id);
