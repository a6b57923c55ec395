-- dialect: snowflake
-- schema: shop.yaml
-- description: a Snowflake SQL UDF whose body (a string) is an expression over a subquery: inlined at the call, reading order_items through the body and the caller's column through the parameter
CREATE OR REPLACE FUNCTION order_total(oid NUMBER) RETURNS NUMBER AS
  'COALESCE((SELECT SUM(quantity * price) FROM order_items WHERE order_id = oid), 0)';
SELECT order_id, status, order_total(order_id) AS total FROM orders;
