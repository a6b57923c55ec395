-- dialect: tsql
-- schema: shop_writes.yaml
-- description: through the script, a DELETE decides which rows remain: its WHERE controls every column after it
-- through-script: yes
SELECT customer_id, name INTO #c FROM customers;
DELETE FROM #c WHERE name LIKE 'test%';
SELECT customer_id FROM #c;
