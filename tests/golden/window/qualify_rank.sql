-- dialect: bigquery
-- schema: shop.yaml
-- description: QUALIFY RANK() … <= 3 after a WHERE: controls from the window's partition and order, and the WHERE
SELECT customer_id, amount FROM orders WHERE status = 'paid' QUALIFY RANK() OVER (PARTITION BY customer_id ORDER BY amount DESC) <= 3
