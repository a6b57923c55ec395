-- dialect: duckdb
-- schema: shop.yaml
-- description: ROLLUP over a join
SELECT c.country, c.segment, SUM(o.amount) AS total FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id GROUP BY ROLLUP (c.country, c.segment)
