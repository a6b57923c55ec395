-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: DuckDB's INSERT BY NAME matches the source's columns to the target's by name, whatever their order
MERGE INTO customers t
USING (SELECT customer_id, name, segment, country FROM customers_staging) s ON t.customer_id = s.customer_id
WHEN NOT MATCHED THEN INSERT BY NAME
