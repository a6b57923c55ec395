-- dialect: trino
-- schema: nested.yaml
-- description: Trino: UNNEST of an array of rows makes one column per field (named by the alias); WITH ORDINALITY's column reads the array's shape
SELECT o.order_id, u.sku, u.n
FROM orders AS o CROSS JOIN UNNEST(o.items) WITH ORDINALITY AS u(sku, qty, price, n)
