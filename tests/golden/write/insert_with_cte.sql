-- dialect: tsql
-- schema: shop_writes.yaml
-- description: WITH … INSERT (T-SQL writes the CTE before INSERT): lineage goes through the CTE
WITH paid AS (SELECT customer_id, amount FROM orders WHERE status = 'paid')
INSERT INTO customer_totals (customer_id, total)
SELECT customer_id, SUM(amount) FROM paid GROUP BY customer_id
