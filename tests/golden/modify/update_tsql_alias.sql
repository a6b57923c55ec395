-- dialect: tsql
-- schema: shop_writes.yaml
-- description: T-SQL's UPDATE alias SET … FROM t AS alias JOIN …: the alias names the target
UPDATE o SET status = c.segment
FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id
