-- dialect: postgres
-- schema: shop.yaml
-- description: DISTINCT ON (key): grouping lineage from the key, sort lineage from the ORDER BY
SELECT DISTINCT ON (customer_id) customer_id, order_id, amount FROM orders ORDER BY customer_id, ordered_at DESC
