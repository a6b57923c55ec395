-- dialect: snowflake
-- schema: shop.yaml
-- description: hash functions are masks (function registry)
SELECT SHA2(name) AS hashed, MD5(country) AS h2, customer_id FROM customers
