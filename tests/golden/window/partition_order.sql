-- dialect: duckdb
-- schema: shop.yaml
-- description: SUM() OVER (PARTITION BY … ORDER BY …): value/window from the input, window lineage from partition, order and input
SELECT order_id, SUM(amount) OVER (PARTITION BY customer_id ORDER BY ordered_at) AS running FROM orders
