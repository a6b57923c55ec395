-- dialect: tsql
-- schema: nested.yaml
-- description: T-SQL JSON_VALUE
SELECT JSON_VALUE(payload, '$.customer.id') AS cid FROM orders
