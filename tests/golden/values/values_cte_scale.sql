-- dialect: duckdb
-- schema: shop.yaml
-- description: a VALUES CTE cross-joined: only the table column is a source
WITH m(k, factor) AS (VALUES (1, 10)) SELECT o.amount * m.factor AS scaled FROM orders AS o CROSS JOIN m
