-- dialect: databricks
-- schema: shop_writes.yaml
-- description: MERGE rows: every WHEN … AND condition decides which target rows change (MATCHED) or are added (NOT MATCHED), as an UPDATE's WHERE does; a written column gets only its own clauses' conditions
MERGE INTO customer_totals t USING orders s ON t.customer_id = s.customer_id
WHEN MATCHED AND s.status = 'paid' THEN UPDATE SET total = t.total + s.amount
WHEN NOT MATCHED AND s.amount > 100 THEN INSERT (customer_id, order_count) VALUES (s.customer_id, 1)
