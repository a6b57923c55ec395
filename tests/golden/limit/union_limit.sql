-- dialect: snowflake
-- schema: shop.yaml
-- description: LIMIT after a UNION ALL
SELECT name FROM customers UNION ALL SELECT name FROM products LIMIT 5
