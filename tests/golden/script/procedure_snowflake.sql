-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: a Snowflake Scripting procedure ($$ BEGIN ... END $$): each write of its body answered, naming the procedure; RETURN moves no data
CREATE OR REPLACE PROCEDURE refresh_totals() RETURNS VARCHAR LANGUAGE SQL AS $$
BEGIN
  DELETE FROM customer_totals WHERE order_count = 0;
  INSERT INTO customer_totals (customer_id, total, order_count)
    SELECT customer_id, SUM(amount), COUNT(*) FROM orders GROUP BY customer_id;
  RETURN 'done';
END;
$$;
