-- dialect: bigquery
-- schema: shop_writes.yaml
-- description: BigQuery MERGE: the NOT MATCHED condition is in rows (rows added depend on it) and on the inserted columns
MERGE customer_totals t USING orders s ON t.customer_id = s.customer_id
WHEN NOT MATCHED AND s.status = 'paid' THEN INSERT (customer_id, total) VALUES (s.customer_id, s.amount)
