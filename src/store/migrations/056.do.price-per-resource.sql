-- A plan's monthly price in EUR per GB of RAM, per CPU core and per GB of disk: what the sorts by price per resource
-- order by across currencies, as base_monthly_price orders the price sort (migration 041). Derived by PostgreSQL from
-- the EUR price and the normalized specs, so that every statement that writes either (a sync, a rates import, the
-- derivation of stale specs at start) keeps them right. Null without a EUR price, or where the spec is not given, is
-- none or is unlimited (catalog/price-per.ts, which rounds the figures it shows the same way).
-- Adding the columns rewrites the table once.
ALTER TABLE products
  ADD COLUMN base_price_per_ram_gb numeric GENERATED ALWAYS AS (
    CASE WHEN (spec_values ->> 'ram_gb')::numeric > 0 AND (spec_values ->> 'ram_gb')::numeric < 1000000000
      THEN round(base_monthly_price / (spec_values ->> 'ram_gb')::numeric, 6) END) STORED,
  ADD COLUMN base_price_per_cpu_core numeric GENERATED ALWAYS AS (
    CASE WHEN (spec_values ->> 'cpu_cores')::numeric > 0 AND (spec_values ->> 'cpu_cores')::numeric < 1000000000
      THEN round(base_monthly_price / (spec_values ->> 'cpu_cores')::numeric, 6) END) STORED,
  ADD COLUMN base_price_per_disk_gb numeric GENERATED ALWAYS AS (
    CASE WHEN (spec_values ->> 'disk_gb')::numeric > 0 AND (spec_values ->> 'disk_gb')::numeric < 1000000000
      THEN round(base_monthly_price / (spec_values ->> 'disk_gb')::numeric, 6) END) STORED;

-- Each sort walked in order, across the directory and within a category, as the price sort's indexes are; the
-- products without the figure follow in id order (the listing's second segment).
CREATE INDEX products_listed_base_price_per_ram_gb ON products (base_price_per_ram_gb, id) WHERE status = 'active';
CREATE INDEX products_listed_category_base_price_per_ram_gb
  ON products (category, base_price_per_ram_gb, id) WHERE status = 'active';
CREATE INDEX products_listed_base_price_per_cpu_core ON products (base_price_per_cpu_core, id) WHERE status = 'active';
CREATE INDEX products_listed_category_base_price_per_cpu_core
  ON products (category, base_price_per_cpu_core, id) WHERE status = 'active';
CREATE INDEX products_listed_base_price_per_disk_gb ON products (base_price_per_disk_gb, id) WHERE status = 'active';
CREATE INDEX products_listed_category_base_price_per_disk_gb
  ON products (category, base_price_per_disk_gb, id) WHERE status = 'active';
