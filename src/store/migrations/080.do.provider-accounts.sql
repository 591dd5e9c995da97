-- Providers that join on their own: the people who sign in for a host, the domain it proves, the one-time links
-- mailed to them, their sessions, and the record of who did what.

-- A host that signed up is 'pending' (not listed) until its domain is proved and, when the operator asks for it,
-- approved; its keys may sync meanwhile, so that its catalogue is ready when it is listed.
ALTER TABLE hosts DROP CONSTRAINT hosts_status_check;
ALTER TABLE hosts ADD CONSTRAINT hosts_status_check CHECK (status IN ('active', 'suspended', 'pending'));

-- A key's name, given by whoever created it ("billing", "staging"), so that two keys during a rotation are told apart.
ALTER TABLE api_keys ADD COLUMN name text CHECK (length(name) BETWEEN 1 AND 100);

-- The website domain a host proves by publishing its token (DNS TXT or /.well-known). One domain, one host.
CREATE TABLE host_domains (
  host_id      bigint PRIMARY KEY REFERENCES hosts (id),
  domain       text NOT NULL UNIQUE CHECK (domain ~ '^[a-z0-9.-]{1,253}$'),
  token        text NOT NULL,
  verified_at  timestamptz,
  -- none: listed once verified; pending: waits for the operator (REQUIRE_APPROVAL); approved; rejected
  approval     text NOT NULL DEFAULT 'none' CHECK (approval IN ('none', 'pending', 'approved', 'rejected')),
  decided_at   timestamptz,
  checked_at   timestamptz,
  check_result text
);

CREATE TABLE host_people (
  id           text PRIMARY KEY,
  host_id      bigint NOT NULL REFERENCES hosts (id),
  email        text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  confirmed_at timestamptz,
  invited_by   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  removed_at   timestamptz
);
-- An address belongs to at most one provider among the people not removed.
CREATE UNIQUE INDEX host_people_email ON host_people (email) WHERE removed_at IS NULL;
CREATE INDEX host_people_by_host ON host_people (host_id);

-- One-time links (confirmation and sign-in): only a digest of the token, expiring, used once.
CREATE TABLE person_links (
  digest     bytea PRIMARY KEY CHECK (length(digest) = 32),
  person_id  text NOT NULL REFERENCES host_people (id),
  email      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX person_links_by_email ON person_links (email, created_at);

-- Sessions: the cookie holds an id; its digest is checked here on every request, so that signing out or being
-- removed ends it at once, in every process.
CREATE TABLE person_sessions (
  digest     bytea PRIMARY KEY CHECK (length(digest) = 32),
  person_id  text NOT NULL REFERENCES host_people (id),
  host_id    bigint NOT NULL REFERENCES hosts (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at   timestamptz
);
CREATE INDEX person_sessions_by_person ON person_sessions (person_id);

-- Who did what and when: sign-ins, key changes, profile changes, approvals.
CREATE TABLE audit_events (
  host_id bigint NOT NULL REFERENCES hosts (id),
  id      bigint GENERATED ALWAYS AS IDENTITY,
  at      timestamptz NOT NULL DEFAULT now(),
  actor   text NOT NULL,
  action  text NOT NULL,
  detail  text,
  PRIMARY KEY (host_id, id)
);

-- Refused syncs as the API answered them (422 with its errors), the latest few per host, for the dashboard.
CREATE TABLE sync_refusal_reports (
  host_id    bigint NOT NULL REFERENCES hosts (id),
  id         bigint GENERATED ALWAYS AS IDENTITY,
  refused_at timestamptz NOT NULL DEFAULT now(),
  dry_run    boolean NOT NULL,
  status     integer NOT NULL,
  code       text NOT NULL,
  detail     text NOT NULL,
  errors     jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (host_id, id)
);
