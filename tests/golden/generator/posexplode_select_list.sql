-- dialect: spark
-- schema: nested.yaml
-- description: POSEXPLODE in the select list with AS (pos, tag): one generator, two columns
SELECT order_id, POSEXPLODE(tags) AS (pos, tag) FROM orders
