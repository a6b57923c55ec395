-- dialect: bigquery
-- schema: shop.yaml
-- description: a column the table declares wins over a table alias of the same name (status is orders.status, not the row)
SELECT status FROM orders AS status
