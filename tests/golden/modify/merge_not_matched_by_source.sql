-- dialect: bigquery
-- schema: shop_writes.yaml
-- description: MERGE with WHEN NOT MATCHED BY SOURCE THEN DELETE and an INSERT of a subquery's rows
MERGE customers T
USING (SELECT * FROM customers_staging WHERE NOT deleted) S
ON T.customer_id = S.customer_id
WHEN MATCHED THEN UPDATE SET name = S.name, segment = S.segment
WHEN NOT MATCHED THEN INSERT (customer_id, name, country, segment) VALUES (S.customer_id, S.name, S.country, S.segment)
WHEN NOT MATCHED BY SOURCE THEN DELETE
