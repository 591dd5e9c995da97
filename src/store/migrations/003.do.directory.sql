-- The public directory searches every listed product across hosts. Two derived columns make the searches
-- indexable, and partial indexes cover only what the public ever sees (active products).

-- "Monthly price": the monthly pricing tier when the product has one, else its headline price (a product's
-- price is taken to be per month unless a monthly tier says otherwise). Derived by the database so that it can
-- never disagree with the stored tiers.
ALTER TABLE products ADD COLUMN monthly_price numeric GENERATED ALWAYS AS (
  coalesce((jsonb_path_query_first(pricing_tiers::jsonb, '$[*] ? (@.period == "monthly").price'))::numeric, price)
) STORED;

-- Words of the name and description; the 'simple' configuration neither stems nor drops stop words, so
-- product names such as "NVMe" or "Ryzen" match as typed (prefix queries find "nvm" in "NVMe").
ALTER TABLE products ADD COLUMN search_text tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', coalesce(description, '')), 'B')
) STORED;

-- Every directory sort is a keyset (sort key, id); id is a ULID, so id order is creation order ("newest").
CREATE INDEX products_listed_price ON products (monthly_price, id) WHERE status = 'active';
CREATE INDEX products_listed_name ON products ((lower(name) COLLATE "C"), id) WHERE status = 'active';
CREATE INDEX products_listed_newest ON products (id) WHERE status = 'active';
CREATE INDEX products_listed_category_price ON products (category, monthly_price, id) WHERE status = 'active';
CREATE INDEX products_listed_category_name ON products (category, (lower(name) COLLATE "C"), id) WHERE status = 'active';
CREATE INDEX products_listed_category_newest ON products (category, id) WHERE status = 'active';
CREATE INDEX products_listed_currency_price ON products (currency, monthly_price, id) WHERE status = 'active';

CREATE INDEX products_listed_text ON products USING gin (search_text) WHERE status = 'active';
CREATE INDEX products_listed_features ON products USING gin (features jsonb_path_ops) WHERE status = 'active';
CREATE INDEX products_listed_locations ON products USING gin (datacenter_locations jsonb_path_ops) WHERE status = 'active';
