-- dialect: postgres
-- schema: shop.yaml
-- description: a ranking function has no value input: window lineage only
SELECT name, ROW_NUMBER() OVER (PARTITION BY country ORDER BY name) AS rn FROM customers
