-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: INSERT … SELECT * from a table without a schema: each written column comes from one of its unknown columns (by position)
INSERT INTO customer_totals SELECT * FROM staging_totals
