-- Stock: the units a provider can still sell (0: sold out), or null when it does not track them. A column without a
-- default: adding it rewrites no row.
ALTER TABLE products ADD COLUMN stock integer;
