-- dialect: postgres
-- schema: shop_writes.yaml
-- description: PL/pgSQL: the statements in IF/ELSE branches are answered (either may run); a statement reading a loop's record cannot be read and says so; RAISE NOTICE moves no data
CREATE OR REPLACE PROCEDURE archive_returns(p_reason varchar) LANGUAGE plpgsql AS $$
DECLARE
  n int;
BEGIN
  IF p_reason IS NULL THEN
    DELETE FROM returns WHERE reason IS NULL;
  ELSE
    INSERT INTO returns (order_id, product_id, reason) SELECT order_id, NULL, p_reason FROM orders WHERE status = 'returned';
  END IF;
  FOR r IN SELECT * FROM orders LOOP
    UPDATE customers SET segment = r.status WHERE customer_id = r.customer_id;
  END LOOP;
  RAISE NOTICE 'done';
END;
$$;
