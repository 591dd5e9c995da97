-- Sold-out plans follow the others in every sort, as a segment of their own (src/store/directory/product-listing.ts).
-- The other plans are walked in the sort indexes there are, skipping the sold-out ones; the sold-out ones in these
-- partial indexes, which hold only them: small, and written only when a plan sells out or comes back.
CREATE INDEX products_sold_out_newest ON products (id) WHERE status = 'active' AND stock = 0;
CREATE INDEX products_sold_out_base_price ON products (base_monthly_price, id) WHERE status = 'active' AND stock = 0;
CREATE INDEX products_sold_out_name ON products ((lower(name) COLLATE "C"), id) WHERE status = 'active' AND stock = 0;
CREATE INDEX products_sold_out_category_newest ON products (category, id) WHERE status = 'active' AND stock = 0;
CREATE INDEX products_sold_out_category_base_price ON products (category, base_monthly_price, id)
  WHERE status = 'active' AND stock = 0;
CREATE INDEX products_sold_out_category_name ON products (category, (lower(name) COLLATE "C"), id)
  WHERE status = 'active' AND stock = 0;
CREATE INDEX products_sold_out_currency_price ON products (currency, monthly_price, id)
  WHERE status = 'active' AND stock = 0;
CREATE INDEX products_sold_out_host_base_price ON products (host_id, base_monthly_price, id)
  WHERE status = 'active' AND stock = 0;
