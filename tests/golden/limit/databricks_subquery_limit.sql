-- dialect: databricks
-- schema: shop.yaml
-- description: a top-N subquery in IN (…): which customers qualify depends on the order key (control)
SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM orders ORDER BY amount DESC LIMIT 10)
