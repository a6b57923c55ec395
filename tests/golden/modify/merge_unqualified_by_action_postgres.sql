-- dialect: postgres
-- schema: shop_writes.yaml
-- description: an unqualified name both tables have is the source's in WHEN NOT MATCHED (only the source row exists) and the target's in WHEN NOT MATCHED BY SOURCE (only the target row exists); PostgreSQL 17 runs both
MERGE INTO customers AS c USING customers_staging AS s ON s.customer_id = c.customer_id
WHEN MATCHED THEN UPDATE SET name = s.name
WHEN NOT MATCHED AND NOT deleted THEN INSERT (customer_id, name, country, segment) VALUES (customer_id, name, country, segment)
WHEN NOT MATCHED BY SOURCE THEN UPDATE SET segment = segment || ' (gone)'
