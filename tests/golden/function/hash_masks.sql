-- dialect: snowflake
-- schema: shop.yaml
-- description: hashes are masks: the value is derived from the column but does not reveal it
SELECT SHA2(name) AS name_hash, MD5(country) AS country_hash FROM customers
