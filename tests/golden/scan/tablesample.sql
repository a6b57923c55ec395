-- dialect: snowflake
-- schema: shop.yaml
-- description: TABLESAMPLE keeps a random part of the rows: it reads no column, so it adds no lineage
SELECT order_id, amount FROM orders TABLESAMPLE BERNOULLI (10)
