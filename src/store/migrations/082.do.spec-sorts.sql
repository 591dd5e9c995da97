-- The sorts by a spec (RAM, CPU cores, disk, traffic, …): each walked in an index of its own, as the sorts by price and
-- by price per resource are. Without them such a sort reads every product that gives the spec: at a million products,
-- 0.5 to 1 s of a shared connection for a page. One index per spec across the directory, holding only the products
-- that give the spec (a product's sync writes entries only for the specs it gives), and one after category for CPU
-- cores and disk, the resources plans are compared by within a category, beside RAM's (migration 045). A sort by
-- another spec within a category walks the directory's index of the spec for the category's products. Each expression
-- and predicate is written exactly as store/directory/listed-product.ts's specExpression and the listing's segment of
-- products giving the spec write them: PostgreSQL walks an index only for the same expression, under a predicate the
-- query implies. The products without the spec follow in id order (the listing's second segment).
-- On a large directory they may be built beforehand with CREATE INDEX CONCURRENTLY under the same names
-- (docs/operations.md, "Migrations"); the migration then finds them there.
CREATE INDEX IF NOT EXISTS products_listed_spec_cpu_cores ON products (((spec_values ->> 'cpu_cores')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'cpu_cores')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_ram_gb ON products (((spec_values ->> 'ram_gb')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'ram_gb')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_disk_gb ON products (((spec_values ->> 'disk_gb')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'disk_gb')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_bandwidth_tb ON products (((spec_values ->> 'bandwidth_tb')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'bandwidth_tb')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_port_mbps ON products (((spec_values ->> 'port_mbps')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'port_mbps')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_ipv4 ON products (((spec_values ->> 'ipv4')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'ipv4')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_player_slots ON products (((spec_values ->> 'player_slots')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'player_slots')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_storage_gb ON products (((spec_values ->> 'storage_gb')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'storage_gb')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_websites ON products (((spec_values ->> 'websites')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'websites')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_spec_email_accounts ON products (((spec_values ->> 'email_accounts')::numeric), id)
  WHERE status = 'active' AND ((spec_values ->> 'email_accounts')::numeric) IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_listed_category_cpu_cores ON products (category, ((spec_values ->> 'cpu_cores')::numeric), id)
  WHERE status = 'active';
CREATE INDEX IF NOT EXISTS products_listed_category_disk_gb ON products (category, ((spec_values ->> 'disk_gb')::numeric), id)
  WHERE status = 'active';
