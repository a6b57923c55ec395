-- dialect: postgres
-- schema: shop.yaml
-- description: a LANGUAGE sql function whose body is a query is that query's value where it is called (a scalar subquery, the parameter the call's argument); its body is also answered as a statement of its own
CREATE FUNCTION customer_country(cid bigint) RETURNS varchar LANGUAGE sql AS $$
  SELECT country FROM customers WHERE customer_id = cid
$$;
SELECT order_id, customer_country(customer_id) AS country FROM orders;
