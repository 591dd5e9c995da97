-- The original interface makes price optional: a product without one is listed as "price on request".
ALTER TABLE products ALTER COLUMN price DROP NOT NULL;

-- Tiers are kept with the period as the billing system sent it, beside the canonical period it names (null when
-- it names none). Tiers stored before this held canonical words only, so each is its own canonical period.
UPDATE products SET pricing_tiers = (
  SELECT json_agg(json_build_object('period', t ->> 'period', 'price', t -> 'price', 'canonical_period', t ->> 'period')
                  ORDER BY k)
  FROM json_array_elements(pricing_tiers) WITH ORDINALITY AS e(t, k))
WHERE pricing_tiers IS NOT NULL AND json_array_length(pricing_tiers) > 0;

-- The monthly price is read from the tier that names the monthly period, however it was spelled; a period the
-- directory does not recognise never gives one. Null when there is neither a price nor a monthly tier.
ALTER TABLE products DROP COLUMN monthly_price;
ALTER TABLE products ADD COLUMN monthly_price numeric GENERATED ALWAYS AS (
  coalesce((jsonb_path_query_first(pricing_tiers::jsonb, '$[*] ? (@.canonical_period == "monthly").price'))::numeric, price)
) STORED;

CREATE INDEX products_listed_price ON products (monthly_price, id) WHERE status = 'active';
CREATE INDEX products_listed_category_price ON products (category, monthly_price, id) WHERE status = 'active';
CREATE INDEX products_listed_currency_price ON products (currency, monthly_price, id) WHERE status = 'active';
-- Sorted by price, products without one come after every priced product, in id order.
CREATE INDEX products_listed_unpriced ON products (id) WHERE status = 'active' AND monthly_price IS NULL;
