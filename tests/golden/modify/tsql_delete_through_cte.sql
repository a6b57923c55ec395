-- dialect: tsql
-- schema: shop_writes.yaml
-- description: WITH cte AS (SELECT … FROM t WHERE …) DELETE FROM cte writes the base table t; the CTE's WHERE and the DELETE's decide the rows removed
WITH negative AS (SELECT order_id, status FROM orders WHERE amount < 0)
DELETE FROM negative WHERE status = 'void'
