-- Watches: a visitor's search (its filters in columns, so that one statement matches a sync's changed products with
-- every watch) or one product, told by email or webhook. Their events are written by the statement that changes the
-- products, in the sync's own transaction (statement-level triggers reading the rows before and after): a sync that
-- rolls back leaves none, one that commits leaves all. docs/watches.md says what a watcher sees.
CREATE TABLE watches (
  id                 text PRIMARY KEY,
  -- exactly one of these: an address (kept only while the watch lives) or a webhook URL
  email              text,
  webhook_url        text,
  -- exactly one of these: a product's id, or a directory query string as the page's URL holds it
  product_id         text,
  search             text,
  -- a search's filters, read from `search` by the directory's own parser (src/watches/filters.ts)
  category           text,
  host_id            bigint,
  facets             jsonb NOT NULL DEFAULT '[]',
  words              tsquery,
  specs              jsonpath,
  currency           text,
  max_monthly_price  numeric,
  max_base_price     numeric,
  -- the bucket of the hash join: 'product|<id>', or '<category>|<first facet>' with either part empty
  match_key          text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  -- double opt-in: the confirmation token's SHA-256 and when it expires; a webhook watch is confirmed at creation
  confirm_digest     bytea UNIQUE,
  confirm_expires_at timestamptz,
  confirmed_at       timestamptz,
  -- delivery: the last message mailed, a process's claim on the watch while it mails, what turned a webhook off
  last_sent_at       timestamptz,
  leased_until       timestamptz,
  delivered          integer NOT NULL DEFAULT 0,
  last_delivered_at  timestamptz,
  disabled_at        timestamptz,
  disabled_reason    text,
  CHECK ((email IS NULL) <> (webhook_url IS NULL)),
  CHECK ((product_id IS NULL) <> (search IS NULL))
);
CREATE INDEX watches_live_key ON watches (match_key) WHERE confirmed_at IS NOT NULL AND disabled_at IS NULL;
CREATE INDEX watches_email ON watches (email) WHERE email IS NOT NULL;
CREATE INDEX watches_unconfirmed ON watches (confirm_expires_at) WHERE confirmed_at IS NULL;

-- What a watch is to be told, until it is told: the id is the event's id in every delivery of it.
CREATE TABLE watch_events (
  id                  text PRIMARY KEY DEFAULT 'evt_' || replace(gen_random_uuid()::text, '-', ''),
  watch_id            text NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
  kind                text NOT NULL,
  host_id             bigint NOT NULL,
  product_id          text NOT NULL,
  previous_base_price numeric,
  base_price          numeric,
  monthly_price       numeric,
  currency            text NOT NULL,
  occurred_at         timestamptz NOT NULL DEFAULT now(),
  attempts            integer NOT NULL DEFAULT 0,
  next_attempt_at     timestamptz NOT NULL DEFAULT now(),
  leased_until        timestamptz,
  last_error          text
);
CREATE INDEX watch_events_due ON watch_events (next_attempt_at);
CREATE INDEX watch_events_watch ON watch_events (watch_id);

-- Whether a product row meets a watch: a single expression, so that PostgreSQL inlines it into the join.
CREATE FUNCTION watch_matches(w watches, p products) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT p.status = 'active'
    AND (w.product_id IS NULL OR w.product_id = p.id)
    AND (w.category IS NULL OR w.category = p.category)
    AND (w.host_id IS NULL OR w.host_id = p.host_id)
    AND p.facets @> w.facets
    AND (w.words IS NULL OR p.search_text @@ w.words)
    AND (w.specs IS NULL OR coalesce(p.spec_values @@ w.specs, false))
    AND (w.currency IS NULL OR w.currency = p.currency)
    AND (w.max_monthly_price IS NULL OR p.monthly_price <= w.max_monthly_price)
    AND (w.max_base_price IS NULL OR p.base_monthly_price <= w.max_base_price)
$$;

-- The buckets a product row falls in: its own, its category's and the directory's, each alone and with each facet.
CREATE FUNCTION watch_keys(p products) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'product|' || p.id
  UNION ALL SELECT p.category || '|'
  UNION ALL SELECT '|'
  UNION ALL SELECT p.category || '|' || f FROM jsonb_array_elements_text(coalesce(p.facets, '[]')) f
  UNION ALL SELECT '|' || f FROM jsonb_array_elements_text(coalesce(p.facets, '[]')) f
$$;

-- Created products: each live search watch it meets is told the plan is new.
CREATE FUNCTION watch_products_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO watch_events (watch_id, kind, host_id, product_id, base_price, monthly_price, currency)
  SELECT w.id, 'matched', n.host_id, n.id, n.base_monthly_price, n.monthly_price, n.currency
  FROM created_products n
    JOIN hosts h ON h.id = n.host_id AND h.status = 'active'
    CROSS JOIN LATERAL watch_keys(n) k (key)
    JOIN watches w ON w.match_key = k.key AND w.confirmed_at IS NOT NULL AND w.disabled_at IS NULL
  WHERE n.status = 'active' AND watch_matches(w, n);
  RETURN NULL;
END
$$;

-- Changed products (by a sync: the content's fingerprint changed, or a product listed again): a watch is told of a
-- product that meets it now and did not before, or whose price in EUR is lower than before (as sent, in the same
-- currency, when either has no EUR price). A rates import or the
-- deriving of specs again changes no fingerprint and tells no one.
CREATE FUNCTION watch_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO watch_events (watch_id, kind, host_id, product_id, previous_base_price, base_price, monthly_price, currency)
  SELECT w.id, CASE WHEN watch_matches(w, o) THEN 'price_dropped' ELSE 'matched' END,
         n.host_id, n.id, o.base_monthly_price, n.base_monthly_price, n.monthly_price, n.currency
  FROM changed_products n
    JOIN products_before o ON o.host_id = n.host_id AND o.external_id = n.external_id
    JOIN hosts h ON h.id = n.host_id AND h.status = 'active'
    CROSS JOIN LATERAL watch_keys(n) k (key)
    JOIN watches w ON w.match_key = k.key AND w.confirmed_at IS NOT NULL AND w.disabled_at IS NULL
  WHERE n.status = 'active'
    AND (o.status <> 'active' OR n.fingerprint IS DISTINCT FROM o.fingerprint)
    AND watch_matches(w, n)
    AND (NOT watch_matches(w, o)
         OR n.base_monthly_price < o.base_monthly_price
         OR ((n.base_monthly_price IS NULL OR o.base_monthly_price IS NULL)
             AND n.currency = o.currency AND n.monthly_price < o.monthly_price));
  RETURN NULL;
END
$$;

CREATE TRIGGER products_tell_watches_created AFTER INSERT ON products
  REFERENCING NEW TABLE AS created_products FOR EACH STATEMENT EXECUTE FUNCTION watch_products_created();
CREATE TRIGGER products_tell_watches_changed AFTER UPDATE ON products
  REFERENCING OLD TABLE AS products_before NEW TABLE AS changed_products
  FOR EACH STATEMENT EXECUTE FUNCTION watch_products_changed();
