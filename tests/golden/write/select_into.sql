-- dialect: tsql
-- schema: shop_writes.yaml
-- description: SELECT … INTO creates a table from the query (T-SQL temp table)
SELECT customer_id, SUM(amount) AS total INTO #totals FROM orders GROUP BY customer_id
