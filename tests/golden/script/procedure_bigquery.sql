-- dialect: bigquery
-- schema: shop_writes.yaml
-- description: a BigQuery procedure (BEGIN ... END): its parameter is a variable, not a column; each write of its body answered, naming the procedure; the statement after END is the script's own
CREATE OR REPLACE PROCEDURE refresh_customer(target_id INT64)
BEGIN
  DELETE FROM customer_totals WHERE customer_id = target_id;
  INSERT INTO customer_totals (customer_id, total, order_count)
    SELECT customer_id, SUM(amount), COUNT(*) FROM orders WHERE customer_id = target_id GROUP BY customer_id;
END;
SELECT customer_id, total FROM customer_totals;
