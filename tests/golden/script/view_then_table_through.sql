-- dialect: bigquery
-- schema: shop_writes.yaml
-- description: a view, a table built from it, a query joining the table: through the script every answer is in base columns
-- through-script: yes
CREATE VIEW v_paid AS SELECT customer_id, amount FROM orders WHERE status = 'paid';
CREATE TABLE totals AS SELECT customer_id, SUM(amount) AS total FROM v_paid GROUP BY customer_id;
SELECT c.name, t.total FROM totals t JOIN customers c ON c.customer_id = t.customer_id;
