-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: a MERGE that only updates (WHEN MATCHED AND … THEN UPDATE): the ON keys and the clause condition control the set column only
-- through-script: yes
CREATE TEMP TABLE seg AS SELECT customer_id, name, segment FROM customers;
MERGE INTO seg USING orders AS o ON seg.customer_id = o.customer_id WHEN MATCHED AND o.amount > 1000 THEN UPDATE SET segment = 'vip';
SELECT name, segment FROM seg;
