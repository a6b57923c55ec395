-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: statements after a Snowflake procedure whose body is a $$ string are the script's own, not its body (sqlglot reads them into the CREATE's block): the SELECT after the first CREATE and the second CREATE's body are answered as such
CREATE OR REPLACE PROCEDURE purge_totals() RETURNS VARCHAR LANGUAGE SQL AS $$
BEGIN
  DELETE FROM customer_totals WHERE order_count = 0;
END;
$$;
SELECT customer_id, total FROM customer_totals;
CREATE OR REPLACE PROCEDURE reload_totals() RETURNS VARCHAR LANGUAGE SQL AS $$
BEGIN
  INSERT INTO customer_totals (customer_id, total, order_count)
    SELECT customer_id, SUM(amount), COUNT(*) FROM orders GROUP BY customer_id;
END;
$$;
