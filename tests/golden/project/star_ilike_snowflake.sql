-- dialect: snowflake
-- schema: shop.yaml
-- description: SELECT * ILIKE picks the columns whose name matches the pattern without case (%_id: order_id, customer_id), and t.* ILIKE those of one table, each exact; the others are not outputs
SELECT o.* ILIKE '%_id', c.* ILIKE 'n%'
FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id
