-- hostdir's schema. Every table that grows with the directory keys its rows by host_id first, so that
-- the tables can be distributed by host (see README, "Beyond one PostgreSQL").

CREATE TABLE categories (
  slug        text PRIMARY KEY CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  label       text NOT NULL CHECK (length(label) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO categories (slug, label) VALUES
  ('web_shared', 'Shared web hosting'),
  ('web_wordpress', 'WordPress hosting'),
  ('web_reseller', 'Reseller hosting'),
  ('vps_cloud', 'Cloud VPS'),
  ('vps_managed', 'Managed VPS'),
  ('dedicated', 'Dedicated servers'),
  ('dedicated_gpu', 'GPU dedicated servers'),
  ('colocation', 'Colocation'),
  ('storage', 'Storage'),
  ('backup', 'Backup'),
  ('email', 'Email hosting'),
  ('domain', 'Domains'),
  ('ssl', 'SSL certificates'),
  ('cdn', 'CDN'),
  ('game_minecraft', 'Minecraft servers'),
  ('game_rust', 'Rust servers'),
  ('game_ark', 'ARK servers'),
  ('game_valheim', 'Valheim servers'),
  ('game_cs2', 'Counter-Strike 2 servers'),
  ('game_palworld', 'Palworld servers'),
  ('game_other', 'Other game servers'),
  ('voice_teamspeak', 'TeamSpeak servers');

CREATE TABLE hosts (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug              text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  default_currency  text NOT NULL DEFAULT 'USD' CHECK (default_currency ~ '^[A-Z]{3}$'),
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 digest of a key is kept; the plaintext is shown once, when issued.
CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  host_id       bigint NOT NULL REFERENCES hosts (id),
  digest        bytea NOT NULL UNIQUE CHECK (length(digest) = 32),
  prefix        text NOT NULL,
  status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz,
  last_used_at  timestamptz
);
CREATE INDEX api_keys_host ON api_keys (host_id, created_at);

CREATE TABLE products (
  host_id               bigint NOT NULL REFERENCES hosts (id),
  external_id           text NOT NULL,
  id                    text NOT NULL,
  status                text NOT NULL CHECK (status IN ('active', 'inactive')),
  name                  text NOT NULL,
  category              text NOT NULL REFERENCES categories (slug),
  price                 numeric NOT NULL CHECK (price >= 0),
  currency              text NOT NULL,
  description           text,
  specs                 json,
  pricing_tiers         json,
  setup_fee             numeric CHECK (setup_fee >= 0),
  contract_duration     text,
  features              jsonb,
  datacenter_locations  jsonb,
  -- digest of the normalized content: a re-sent product that did not change is never written
  fingerprint           text NOT NULL,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  deactivated_at        timestamptz,
  PRIMARY KEY (host_id, external_id),
  UNIQUE (host_id, id)
);
CREATE INDEX products_host_status ON products (host_id, status, id);
CREATE INDEX products_id ON products (id);

-- One row per accepted sync (applied or dry run). The rate limit is derived from these rows.
CREATE TABLE sync_runs (
  host_id      bigint NOT NULL REFERENCES hosts (id),
  id           text NOT NULL,
  dry_run      boolean NOT NULL,
  request_id   text,
  received     integer NOT NULL,
  created      integer NOT NULL,
  updated      integer NOT NULL,
  unchanged    integer NOT NULL,
  reactivated  integer NOT NULL,
  deactivated  integer NOT NULL,
  started_at   timestamptz NOT NULL,
  applied_at   timestamptz NOT NULL,
  duration_ms  integer NOT NULL,
  PRIMARY KEY (host_id, id)
);
CREATE INDEX sync_runs_window ON sync_runs (host_id, dry_run, applied_at DESC);
