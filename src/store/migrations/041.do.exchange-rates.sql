-- Exchange rates against the base currency (EUR, as the ECB quotes them): units of a currency one euro buys, per
-- day, with where they came from. The directory converts with each currency's latest day.
CREATE TABLE exchange_rates (
  currency     text NOT NULL CHECK (currency ~ '^[A-Z]{3}$' AND currency <> 'EUR'),
  rate_date    date NOT NULL,
  rate         numeric NOT NULL CHECK (rate > 0),
  source       text NOT NULL CHECK (length(source) BETWEEN 1 AND 200),
  imported_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (currency, rate_date)
);

-- Every product's price per month (the monthly price, or the monthly equivalent of a plan sold by the quarter or
-- the year: src/catalog/true-cost.ts) in its own currency, and in EUR. Written by the sync's own statements and
-- derived again by a rates import; the EUR figure is null while its currency has no rate.
ALTER TABLE products ADD COLUMN monthly_equivalent numeric, ADD COLUMN base_monthly_price numeric;

-- Products stored before: the same rule as true-cost.ts's monthlyEquivalent, in SQL. A monthly tier; else, among
-- tiers of whole months whose price is the product's price (all of them without a price), the one of fewest months
-- divided by its months; else the price.
UPDATE products p SET monthly_equivalent = round(coalesce(
    (SELECT (t ->> 'price')::numeric FROM json_array_elements(p.pricing_tiers) AS t
     WHERE t ->> 'canonical_period' = 'monthly' LIMIT 1),
    (SELECT (t ->> 'price')::numeric / m.n
     FROM json_array_elements(p.pricing_tiers) WITH ORDINALITY AS e (t, k)
       JOIN (VALUES ('quarterly', 3), ('semiannually', 6), ('annually', 12), ('biennially', 24), ('triennially', 36))
         AS m (period, n) ON m.period = t ->> 'canonical_period'
     WHERE p.price IS NULL OR (t ->> 'price')::numeric = p.price
     ORDER BY m.n, e.k LIMIT 1),
    p.price), 6)
WHERE p.pricing_tiers IS NOT NULL OR p.price IS NOT NULL;
UPDATE products SET base_monthly_price = monthly_equivalent WHERE currency = 'EUR' AND monthly_equivalent IS NOT NULL;

-- Sorted by price across currencies, products are in EUR order; those without a EUR figure follow, in id order.
-- A search within one currency still sorts by the price as sent: products_listed_currency_price, and
-- products_listed_category_price for one category and currency. Nothing else sorts by it any more.
DROP INDEX products_listed_price;
CREATE INDEX products_listed_base_price ON products (base_monthly_price, id) WHERE status = 'active';
CREATE INDEX products_listed_category_base_price ON products (category, base_monthly_price, id) WHERE status = 'active';
CREATE INDEX products_listed_unconverted ON products (id) WHERE status = 'active' AND base_monthly_price IS NULL;
-- Which currencies could not be converted: a few entries per currency, read by a walk that skips from one to the next.
CREATE INDEX products_listed_unconverted_currency ON products (currency)
  WHERE status = 'active' AND base_monthly_price IS NULL AND monthly_equivalent IS NOT NULL;
