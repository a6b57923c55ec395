-- dialect: tsql
-- schema: shop_writes.yaml
-- description: T-SQL MERGE with WHEN NOT MATCHED BY SOURCE AND … THEN DELETE: the condition decides which target rows are removed (rows, and every written column)
MERGE INTO customer_totals AS t USING (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) AS s ON t.customer_id = s.customer_id
WHEN MATCHED AND s.total <> t.total THEN UPDATE SET total = s.total
WHEN NOT MATCHED BY SOURCE AND t.order_count = 0 THEN DELETE;
