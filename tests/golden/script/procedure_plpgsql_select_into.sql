-- dialect: postgres
-- schema: shop_writes.yaml
-- description: PL/pgSQL SELECT ... INTO v in a body assigns the variable v (it creates no table v): a later read carries the query's lineage, said uncertain; a row into a record variable is not followed and says so
CREATE FUNCTION refresh_totals() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  top numeric;
  r record;
BEGIN
  SELECT max(amount) INTO top FROM orders;
  SELECT * INTO r FROM customers;
  INSERT INTO customer_totals (customer_id, total) SELECT customer_id, top FROM customers;
END;
$$;
