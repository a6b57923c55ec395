-- dialect: bigquery
-- schema: shop.yaml
-- description: CROSS JOIN has no condition: no join lineage
SELECT c.name, p.name AS product FROM customers AS c CROSS JOIN products AS p
