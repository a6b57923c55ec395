-- dialect: bigquery
-- schema: shop_writes.yaml
-- description: DELETE … WHERE col IN (SELECT …): the subquery's rows and filter decide too
DELETE FROM orders WHERE customer_id IN (SELECT customer_id FROM customers WHERE country = 'XX')
