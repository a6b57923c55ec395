-- dialect: duckdb
-- schema: shop.yaml
-- description: COUNT_IF(c) is COUNT(*) FILTER (WHERE c): the condition is control (filter), never a value of the count (field trial 37)
SELECT customer_id, COUNT_IF(amount > 100) AS big_orders, COUNT(*) FILTER (WHERE amount > 100) AS big_orders_filter FROM orders GROUP BY customer_id
