-- dialect: databricks
-- schema: shop.yaml
-- description: a Databricks SQL function (RETURN expr): its parameters are the call's arguments by position, never the caller's columns of the same name (name here is the caller's segment)
CREATE TEMPORARY FUNCTION product_label(name STRING, pid BIGINT) RETURNS STRING
  RETURN CONCAT(name, ' / ', (SELECT MAX(p.category) FROM products AS p WHERE p.product_id = pid));
SELECT product_label(segment, customer_id) AS label, name FROM customers;
