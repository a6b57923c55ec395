-- dialect: snowflake
-- schema: shop.yaml
-- description: a CTE nobody reads adds nothing
WITH unused AS (SELECT reason FROM returns) SELECT name FROM customers
