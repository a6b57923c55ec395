-- dialect: duckdb
-- schema: shop.yaml
-- description: a later select item reads an earlier alias: it is expanded to its expression
SELECT amount * 2 AS doubled, doubled + 1 AS plus_one FROM orders
