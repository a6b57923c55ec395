-- dialect: bigquery
-- schema: shop.yaml
-- description: SET x = (SELECT …): a read of x has that query's lineage (a scalar subquery), said in uncertain
DECLARE top_customer INT64;
SET top_customer = (SELECT customer_id FROM orders ORDER BY amount DESC LIMIT 1);
SELECT name, top_customer AS best FROM customers WHERE customer_id = top_customer;
