-- dialect: bigquery
-- schema: shop.yaml
-- description: a WHERE over a joined table: control beside the join lineage
SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id WHERE o.status = 'paid'
