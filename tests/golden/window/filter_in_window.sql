-- dialect: duckdb
-- schema: shop.yaml
-- description: COUNT(*) FILTER (WHERE …) OVER (…): the filter column is window lineage
SELECT order_id, COUNT(*) FILTER (WHERE status = 'paid') OVER (PARTITION BY customer_id) AS paid_orders FROM orders
