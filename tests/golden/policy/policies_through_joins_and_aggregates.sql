-- dialect: bigquery
-- schema: governed.yaml
-- description: policies and checks reach every field the governed rows flow into; grouping by a masked column groups by what its mask reads too
SELECT c.email, SUM(o.amount) AS total FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id GROUP BY c.email
