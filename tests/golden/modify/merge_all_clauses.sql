-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: MERGE: values from each clause that writes a column; ON is join; a clause's condition and earlier ones of its kind are control; a DELETE clause's condition controls the rows
MERGE INTO customer_totals t USING orders s ON t.customer_id = s.customer_id
WHEN MATCHED AND s.status = 'void' THEN DELETE
WHEN MATCHED THEN UPDATE SET total = t.total + s.amount, order_count = t.order_count + 1
WHEN NOT MATCHED AND s.amount > 0 THEN INSERT (customer_id, total, order_count) VALUES (s.customer_id, s.amount, 1)
