-- dialect: snowflake
-- schema: shop.yaml
-- description: a global COUNT(*): no value source, only the WHERE's control
SELECT COUNT(*) AS n FROM orders WHERE status = 'paid'
