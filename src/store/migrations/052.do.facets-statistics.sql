-- PostgreSQL estimates how many products a location or feature filter (facets @> …) matches from the most common
-- whole facet lists of its ANALYZE sample. With the default sample (30 000 rows at a million products) the estimate
-- for a common pair swung, from one ANALYZE to the next, between about 100 matches and the 10 000 there were: at
-- 100 it read and sorted all 10 000 (40 ms) instead of walking the price index to the page's 21 (3 ms). A sample
-- three times larger keeps the estimate within a factor of two (ANALYZE of the products takes about 3.5 s instead
-- of 1 s at that size).
ALTER TABLE products ALTER COLUMN facets SET STATISTICS 300;
