-- dialect: snowflake
-- schema: shop.yaml
-- description: ORDER BY columns not selected: sort lineage, and no extra output field
SELECT order_id FROM orders ORDER BY ordered_at DESC, amount
