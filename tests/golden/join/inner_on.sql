-- dialect: duckdb
-- schema: shop.yaml
-- description: INNER JOIN … ON: join lineage from both keys; each field keeps value lineage from its own side
SELECT o.order_id, c.name FROM orders AS o INNER JOIN customers AS c ON o.customer_id = c.customer_id
