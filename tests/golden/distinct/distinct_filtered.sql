-- dialect: snowflake
-- schema: shop.yaml
-- description: SELECT DISTINCT with a WHERE
SELECT DISTINCT status FROM orders WHERE amount > 0
