-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery: IF(cond, a, b).* over two rows with the same columns is one field per column, each the same choice over that column of both rows; the replaced one is its new value
SELECT IF(a.segment = 'vip', a, b).* EXCEPT (country) REPLACE (coalesce(a.name, b.name) AS name)
FROM customers AS a JOIN customers AS b ON a.customer_id = b.customer_id
