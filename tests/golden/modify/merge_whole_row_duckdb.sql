-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: DuckDB's whole-row actions go by position (UPDATE SET *, bare INSERT; DuckDB 2.0.1 checked): the source lists segment before country, so country is written from segment; DO NOTHING writes nothing but its condition decides for the clauses after it
MERGE INTO customers t
USING (SELECT customer_id, name, segment, country FROM customers_staging) s ON t.customer_id = s.customer_id
WHEN MATCHED AND s.name IS NULL THEN DO NOTHING
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT
