-- dialect: bigquery
-- schema: shop.yaml
-- description: a BigQuery script variable is not a column: DECLARE … DEFAULT 5 gives no source, and the WHERE reads only customer_id
DECLARE min_customer INT64 DEFAULT 5;
SELECT order_id FROM orders WHERE customer_id >= min_customer;
