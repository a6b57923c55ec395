-- dialect: bigquery
-- schema: shop.yaml
-- description: a UNION branch's ORDER BY … LIMIT picks that branch's rows (control for the whole result); it orders nothing the result shows
(SELECT name FROM customers ORDER BY country LIMIT 3) UNION ALL (SELECT name FROM products)
