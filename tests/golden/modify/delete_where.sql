-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: DELETE: no column is written; the WHERE decides which rows are removed (rows)
DELETE FROM orders WHERE status = 'void'
