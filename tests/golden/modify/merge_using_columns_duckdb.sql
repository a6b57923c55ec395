-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: DuckDB's MERGE … USING s USING (customer_id) joins on the named column; in WHEN NOT MATCHED only the source row exists, so the unqualified customer_id and name are the source's
MERGE INTO customers USING customers_staging USING (customer_id)
WHEN MATCHED THEN UPDATE SET name = customers_staging.name
WHEN NOT MATCHED THEN INSERT (customer_id, name, country, segment) VALUES (customer_id, name, customers_staging.country, 'new')
