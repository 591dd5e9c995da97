-- What the directory derives from each product's content (catalog/derived.ts), written by the sync beside the
-- content: normalized specs, facets (countries, cities, folded locations and features) and extra search words.
-- Rows from before, or from an older parser, carry another derived_version and are derived again at start.
ALTER TABLE products
  ADD COLUMN spec_values jsonb,
  ADD COLUMN facets jsonb,
  ADD COLUMN search_extra text,
  ADD COLUMN derived_version integer NOT NULL DEFAULT 0;

-- The search's words: name (A), description (B), and features, locations, their cities and countries, spec values
-- and the words of the normalized specs (C).
DROP INDEX IF EXISTS products_listed_text;
ALTER TABLE products DROP COLUMN search_text;
ALTER TABLE products ADD COLUMN search_text tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', coalesce(description, '')), 'B')
    || setweight(to_tsvector('simple', coalesce(search_extra, '')), 'C')
) STORED;
CREATE INDEX products_listed_text ON products USING gin (search_text) WHERE status = 'active';

-- Location, country and feature filters ignore case and spacing: they look for facets.
CREATE INDEX products_listed_facets ON products USING gin (facets jsonb_path_ops) WHERE status = 'active';

-- The most asked spec range, by category (listing sorted by it, or filtered by it within a category).
CREATE INDEX products_listed_category_ram ON products (category, ((spec_values ->> 'ram_gb')::numeric), id) WHERE status = 'active';

-- The exact-match filters these served now read facets.
DROP INDEX IF EXISTS products_listed_features;
DROP INDEX IF EXISTS products_listed_locations;
