-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: INSERT … VALUES: constants, so the written columns have no column sources
INSERT INTO customer_totals VALUES (1, 10.50, 3), (2, 20.00, 1)
