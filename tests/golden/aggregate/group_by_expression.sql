-- dialect: duckdb
-- schema: shop.yaml
-- description: GROUP BY an expression written again in the select list
SELECT EXTRACT(year FROM ordered_at) AS y, AVG(amount) AS avg_amount FROM orders GROUP BY EXTRACT(year FROM ordered_at)
