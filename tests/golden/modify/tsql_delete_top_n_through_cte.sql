-- dialect: tsql
-- schema: shop_writes.yaml
-- description: the T-SQL idiom for deleting the first N rows: the CTE's TOP … ORDER BY picks the rows removed (control from amount)
WITH oldest AS (SELECT TOP 100 order_id FROM orders ORDER BY ordered_at)
DELETE FROM oldest
