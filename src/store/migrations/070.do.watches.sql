-- Watches: a visitor's search (its filters in columns, so that one statement matches a sync's changed products with
-- every watch) or one product, told by email or webhook. The statement that changes the products notes, in the sync's
-- own transaction, which products changed and what they were before (statement-level triggers, one INSERT each): a
-- sync that rolls back leaves no note, one that commits leaves all. Each server process's delivery loop then matches
-- the notes with the watches, a batch at a time, out of every sync's way (match_watch_changes). docs/watches.md says
-- what a watcher sees.
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
CREATE INDEX watches_live_words_key ON watches (match_key)
  WHERE confirmed_at IS NOT NULL AND disabled_at IS NULL AND words IS NOT NULL;
CREATE INDEX watches_email ON watches (email) WHERE email IS NOT NULL;
CREATE INDEX watches_unconfirmed ON watches (confirm_expires_at) WHERE confirmed_at IS NULL;

-- What a watch is to be told, until it is told: the id is the event's id in every delivery of it. No foreign key to
-- the watch: its check, a lookup per row, would cost the matching more than the matching itself; src/store/watches.ts
-- deletes a watch's events with it, and any left by a watch deleted while the matching wrote them.
CREATE TABLE watch_events (
  id                  text PRIMARY KEY DEFAULT 'evt_' || replace(gen_random_uuid()::text, '-', ''),
  watch_id            text NOT NULL,
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

-- The buckets a product row falls in: its own, its category's and the directory's, each alone and with each facet.
-- (Its columns, not the row: a whole row of products in these joins trips PostgreSQL 15's planner.)
CREATE FUNCTION watch_keys(id text, category text, facets jsonb) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'product|' || id
  UNION ALL SELECT category || '|'
  UNION ALL SELECT '|'
  UNION ALL SELECT category || '|' || f FROM jsonb_array_elements_text(coalesce(facets, '[]')) f
  UNION ALL SELECT '|' || f FROM jsonb_array_elements_text(coalesce(facets, '[]')) f
$$;

-- A product a committed sync created or changed, until the delivery loop has matched it with the watches: what the
-- matching reads of the row before the change (nothing for a created one), and when. The product as it is now is
-- read when the note is matched.
CREATE TABLE watch_changes (
  id                 bigserial PRIMARY KEY,
  host_id            bigint NOT NULL,
  external_id        text NOT NULL,
  created            boolean NOT NULL,
  changed_at         timestamptz NOT NULL DEFAULT statement_timestamp(),
  status             text,
  category           text,
  facets             jsonb,
  search_text        tsvector,
  spec_values        jsonb,
  currency           text,
  monthly_price      numeric,
  base_monthly_price numeric,
  stock              integer,
  fingerprint        text
);

-- Created products, noted for the matching.
CREATE FUNCTION watch_products_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- With no watch that could be told, a sync pays for this one look and nothing else.
  IF NOT EXISTS (SELECT 1 FROM watches WHERE confirmed_at IS NOT NULL AND disabled_at IS NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO watch_changes (host_id, external_id, created)
  SELECT n.host_id, n.external_id, true FROM created_products n WHERE n.status = 'active';
  RETURN NULL;
END
$$;

-- Changed products, noted with what the matching reads of them before: those a sync changed (the content's
-- fingerprint changed, or a product listed again) and that are listed. A rates import or the deriving of specs again
-- changes no fingerprint and notes nothing. The rows before are joined with the products through the products'
-- primary key: the rows a statement wrote are a tuplestore without statistics, estimated at a handful, and two of
-- them joined are compared row by row (10 000 × 10 000 for a sync of 10 000 products).
CREATE FUNCTION watch_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- With no watch that could be told, a sync pays for this one look and nothing else.
  IF NOT EXISTS (SELECT 1 FROM watches WHERE confirmed_at IS NOT NULL AND disabled_at IS NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO watch_changes (host_id, external_id, created, status, category, facets, search_text, spec_values,
                             currency, monthly_price, base_monthly_price, stock, fingerprint)
  SELECT o.host_id, o.external_id, false, o.status, o.category, o.facets, o.search_text, o.spec_values, o.currency,
         o.monthly_price, o.base_monthly_price, o.stock, o.fingerprint
  FROM products_before o JOIN products n ON n.host_id = o.host_id AND n.external_id = o.external_id
  WHERE n.status = 'active' AND (o.status <> 'active' OR n.fingerprint IS DISTINCT FROM o.fingerprint);
  RETURN NULL;
END
$$;

CREATE TRIGGER products_tell_watches_created AFTER INSERT ON products
  REFERENCING NEW TABLE AS created_products FOR EACH STATEMENT EXECUTE FUNCTION watch_products_created();
CREATE TRIGGER products_tell_watches_changed AFTER UPDATE ON products
  REFERENCING OLD TABLE AS products_before
  FOR EACH STATEMENT EXECUTE FUNCTION watch_products_changed();

-- The matching: claims the oldest `batch` notes (rows another process holds are skipped), writes the events they
-- make and deletes them, in one statement: a process that dies midway leaves the notes to the next, and the events
-- written are those delivered, under the same ids, however often delivery is tried. Returns the notes claimed.
-- Each product noted is matched once a batch, from its oldest note: with the product as it is now, a product created
-- meets a watch it meets now ('matched'); a product changed meets a watch it meets now and did not before
-- ('matched'), or one it met before and now is cheaper than before (in EUR; as sent, in the same currency, when
-- either has no EUR price: 'price_dropped') or was sold out and can be bought again (its stock from 0 to more, or no
-- longer tracked: 'back_in_stock'). Only products changed in what a watch looks at are matched with every watch:
-- created, listed again, cheaper, back in stock, or another category, currency, place, feature or spec; those whose
-- words alone changed (a new description) only with the watches that have words. A dearer price never makes a
-- product meet a watch (its limits are maxima). A product no longer listed, or its provider's, tells no one, and a
-- watch is told nothing a sync changed before it was confirmed.
CREATE FUNCTION match_watch_changes(batch integer) RETURNS integer LANGUAGE sql AS $$
  WITH claimed AS (
    DELETE FROM watch_changes
    WHERE id IN (SELECT id FROM watch_changes ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING *),
  noted AS (SELECT DISTINCT ON (host_id, external_id) * FROM claimed ORDER BY host_id, external_id, id),
  events AS (
    INSERT INTO watch_events (watch_id, kind, host_id, product_id, previous_base_price, base_price, monthly_price,
                              currency, occurred_at)
    SELECT w.id, CASE WHEN NOT met_before THEN 'matched' WHEN d.cheaper THEN 'price_dropped' ELSE 'back_in_stock' END,
           n.host_id, n.id, o.base_monthly_price, n.base_monthly_price, n.monthly_price, n.currency, o.changed_at
    FROM noted o
      JOIN products n ON n.host_id = o.host_id AND n.external_id = o.external_id
      JOIN hosts h ON h.id = n.host_id AND h.status = 'active'
      CROSS JOIN LATERAL (SELECT NOT o.created AND coalesce(n.base_monthly_price < o.base_monthly_price
          OR ((n.base_monthly_price IS NULL OR o.base_monthly_price IS NULL)
              AND n.currency = o.currency AND n.monthly_price < o.monthly_price), false) AS cheaper) d
      CROSS JOIN LATERAL (SELECT NOT o.created AND coalesce(o.stock = 0 AND (n.stock IS NULL OR n.stock > 0), false)
          AS restocked) s
      CROSS JOIN LATERAL (SELECT NOT o.created AND NOT d.cheaper AND NOT s.restocked AND o.status = 'active'
          AND n.category = o.category AND n.currency = o.currency AND n.facets IS NOT DISTINCT FROM o.facets
          AND n.spec_values IS NOT DISTINCT FROM o.spec_values AS reworded_only) r
      CROSS JOIN LATERAL watch_keys(n.id, n.category, n.facets) k (key)
      -- each bucket's live watches (an index probe); the products whose words alone changed only with those with words
      CROSS JOIN LATERAL (
        SELECT * FROM watches w
        WHERE w.match_key = k.key AND w.confirmed_at IS NOT NULL AND w.disabled_at IS NULL AND NOT r.reworded_only
        UNION ALL
        SELECT * FROM watches w
        WHERE w.match_key = k.key AND w.confirmed_at IS NOT NULL AND w.disabled_at IS NULL AND w.words IS NOT NULL
          AND r.reworded_only) w
      CROSS JOIN LATERAL (SELECT NOT o.created AND coalesce(o.status = 'active'
        AND (w.product_id IS NULL OR w.product_id = n.id)
        AND (w.category IS NULL OR w.category = o.category)
        AND (w.host_id IS NULL OR w.host_id = o.host_id)
        AND o.facets @> w.facets
        AND (w.words IS NULL OR o.search_text @@ w.words)
        AND (w.specs IS NULL OR coalesce(o.spec_values @@ w.specs, false))
        AND (w.currency IS NULL OR w.currency = o.currency)
        AND (w.max_monthly_price IS NULL OR o.monthly_price <= w.max_monthly_price)
        AND (w.max_base_price IS NULL OR o.base_monthly_price <= w.max_base_price), false) AS met_before) b
    -- a watch is told only of what changed once it was confirmed
    WHERE w.confirmed_at <= o.changed_at
      AND (o.created OR o.status <> 'active' OR n.fingerprint IS DISTINCT FROM o.fingerprint)
      AND (NOT r.reworded_only OR n.search_text IS DISTINCT FROM o.search_text)
      AND n.status = 'active'
      AND (w.product_id IS NULL OR w.product_id = n.id)
      AND (w.category IS NULL OR w.category = n.category)
      AND (w.host_id IS NULL OR w.host_id = n.host_id)
      AND n.facets @> w.facets
      AND (w.words IS NULL OR n.search_text @@ w.words)
      AND (w.specs IS NULL OR coalesce(n.spec_values @@ w.specs, false))
      AND (w.currency IS NULL OR w.currency = n.currency)
      AND (w.max_monthly_price IS NULL OR n.monthly_price <= w.max_monthly_price)
      AND (w.max_base_price IS NULL OR n.base_monthly_price <= w.max_base_price)
      AND (NOT met_before OR d.cheaper OR s.restocked)
    RETURNING 1)
  SELECT count(*)::integer FROM claimed
$$;
