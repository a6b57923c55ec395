-- dialect: bigquery
-- schema: shop.yaml
-- description: a function whose body is not read (JavaScript) is unknown where it is called, with the reason: its arguments may flow in and what else it reads is not known (never conservative from its arguments alone)
CREATE TEMP FUNCTION clean_name(s STRING) RETURNS STRING LANGUAGE js AS 'return s.trim();';
SELECT customer_id, clean_name(name) AS clean FROM customers;
