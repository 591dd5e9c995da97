-- A sync inserts up to 50 000 products with one COPY, and PostgreSQL checks a foreign key row by row: the two on
-- products (host, category) made that insert about 1.7 times as slow as into the same table without them. The
-- references still hold without the per-row checks: a sync writes only under its host's row lock, after checking
-- every category against the registry, and nothing in hostdir deletes a host or a category. The triggers below
-- keep it so for anyone who tries by hand: a host or category that products refer to cannot be deleted or renamed.
ALTER TABLE products DROP CONSTRAINT products_host_id_fkey;
ALTER TABLE products DROP CONSTRAINT products_category_fkey;

CREATE FUNCTION refuse_deleting_host_with_products() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM products WHERE host_id = OLD.id) THEN
    RAISE EXCEPTION 'host % still has products', OLD.id USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN OLD;
END
$$;

CREATE FUNCTION refuse_dropping_used_category() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM products WHERE category = OLD.slug) THEN
    RAISE EXCEPTION 'category % is still used by products', OLD.slug USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;

CREATE TRIGGER hosts_keep_products BEFORE DELETE ON hosts
  FOR EACH ROW EXECUTE FUNCTION refuse_deleting_host_with_products();
CREATE TRIGGER categories_keep_products BEFORE DELETE ON categories
  FOR EACH ROW EXECUTE FUNCTION refuse_dropping_used_category();
CREATE TRIGGER categories_keep_slug_of_products BEFORE UPDATE OF slug ON categories
  FOR EACH ROW WHEN (OLD.slug IS DISTINCT FROM NEW.slug) EXECUTE FUNCTION refuse_dropping_used_category();
