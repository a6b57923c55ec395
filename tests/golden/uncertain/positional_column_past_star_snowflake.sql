-- dialect: snowflake
-- schema: shop.yaml
-- description: $7 past the columns of a table without a schema is one of its unknown columns (unknown, said), and a path below it ($7:a) stays inside that unknown column (never events.a)
SELECT $2 AS customer_id, $7 AS seventh, $7:a AS part FROM orders, events
