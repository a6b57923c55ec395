-- dialect: bigquery
-- schema: shop.yaml
-- description: EXCEPT DISTINCT: values from the left; the right input's fields and filters are controls
SELECT customer_id FROM customers EXCEPT DISTINCT SELECT customer_id FROM orders WHERE status = 'cancelled'
