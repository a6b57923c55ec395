-- dialect: postgres
-- schema: shop.yaml
-- description: a Postgres function RETURNS TABLE (...) LANGUAGE sql read in FROM: its query as a derived table whose columns are named as RETURNS TABLE names them
CREATE FUNCTION items_of(oid bigint) RETURNS TABLE(product bigint, qty int) LANGUAGE sql AS $$
  SELECT product_id, quantity FROM order_items WHERE order_id = oid
$$;
SELECT i.product, i.qty * 2 AS doubled FROM items_of(42) AS i;
