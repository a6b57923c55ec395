-- dialect: bigquery
-- schema: shop.yaml
-- description: a BigQuery table function the script defines, read in FROM, is its query as a derived table (its parameter the call's constant): the rows come from orders, filtered by its WHERE
CREATE TABLE FUNCTION big_orders(min_amount NUMERIC) AS
  SELECT order_id, customer_id, amount FROM orders WHERE amount >= min_amount;
SELECT c.name, b.amount FROM big_orders(100) AS b JOIN customers AS c ON c.customer_id = b.customer_id;
