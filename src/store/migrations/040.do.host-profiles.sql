-- A host's public profile: its website, a short description, its country (ISO 3166-1 alpha-2) and the template of
-- the link to a product's order page, '{external_id}' standing for the product's id in the billing system. Each is
-- set by the operator or by the host with its key; the service checks them (https only, no credentials), the table
-- holds the last line of defence.
ALTER TABLE hosts
  ADD COLUMN website text CHECK (website ~ '^https://' AND length(website) <= 500),
  ADD COLUMN description text CHECK (length(description) <= 500),
  ADD COLUMN country text CHECK (country ~ '^[A-Z]{2}$'),
  ADD COLUMN order_url_template text CHECK (order_url_template ~ '^https://' AND length(order_url_template) <= 500);
