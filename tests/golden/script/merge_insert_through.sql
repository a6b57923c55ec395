-- dialect: databricks
-- schema: shop_writes.yaml
-- description: a MERGE that also inserts adds rows: what decides which rows are added (the ON keys, the NOT MATCHED condition) applies to every column after it
-- through-script: yes
CREATE TABLE seg AS SELECT customer_id, segment FROM customers;
MERGE INTO seg USING orders AS o ON seg.customer_id = o.customer_id
WHEN MATCHED THEN UPDATE SET segment = o.status
WHEN NOT MATCHED AND o.amount > 0 THEN INSERT (customer_id, segment) VALUES (o.customer_id, 'new');
SELECT customer_id FROM seg;
