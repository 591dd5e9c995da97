-- The sorts by price per resource: a plan's monthly price in EUR (base_monthly_price, migration 041) per GB of RAM,
-- per CPU core and per GB of disk, each walked in an index of its own across the directory and one after category, as
-- the price sort walks its own. Indexes of an expression, so that every statement that writes the EUR price or the
-- normalized specs (a sync, a rates import, the derivation of stale specs at start) keeps them right and the table is
-- not rewritten. Null without a EUR price, or where the spec is not given, is none or is unlimited; the products
-- without it follow in id order (the listing's second segment). Each expression is written exactly as
-- store/directory/sort-keys.ts writes the sort's key: PostgreSQL walks an index only for the same expression.
-- On a large directory they may be built beforehand with CREATE INDEX CONCURRENTLY under the same names
-- (docs/operations.md, "Migrations"); the migration then finds them there.
CREATE INDEX IF NOT EXISTS products_listed_base_price_per_ram_gb ON products ((CASE
    WHEN (spec_values ->> 'ram_gb')::numeric > 0 AND (spec_values ->> 'ram_gb')::numeric < 1000000000
    THEN round(base_monthly_price / (spec_values ->> 'ram_gb')::numeric, 6) END), id) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS products_listed_category_base_price_per_ram_gb ON products (category, (CASE
    WHEN (spec_values ->> 'ram_gb')::numeric > 0 AND (spec_values ->> 'ram_gb')::numeric < 1000000000
    THEN round(base_monthly_price / (spec_values ->> 'ram_gb')::numeric, 6) END), id) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS products_listed_base_price_per_cpu_core ON products ((CASE
    WHEN (spec_values ->> 'cpu_cores')::numeric > 0 AND (spec_values ->> 'cpu_cores')::numeric < 1000000000
    THEN round(base_monthly_price / (spec_values ->> 'cpu_cores')::numeric, 6) END), id) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS products_listed_category_base_price_per_cpu_core ON products (category, (CASE
    WHEN (spec_values ->> 'cpu_cores')::numeric > 0 AND (spec_values ->> 'cpu_cores')::numeric < 1000000000
    THEN round(base_monthly_price / (spec_values ->> 'cpu_cores')::numeric, 6) END), id) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS products_listed_base_price_per_disk_gb ON products ((CASE
    WHEN (spec_values ->> 'disk_gb')::numeric > 0 AND (spec_values ->> 'disk_gb')::numeric < 1000000000
    THEN round(base_monthly_price / (spec_values ->> 'disk_gb')::numeric, 6) END), id) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS products_listed_category_base_price_per_disk_gb ON products (category, (CASE
    WHEN (spec_values ->> 'disk_gb')::numeric > 0 AND (spec_values ->> 'disk_gb')::numeric < 1000000000
    THEN round(base_monthly_price / (spec_values ->> 'disk_gb')::numeric, 6) END), id) WHERE status = 'active';
