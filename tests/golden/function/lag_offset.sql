-- dialect: snowflake
-- schema: shop.yaml
-- description: LAG's offset decides which row is read, not its value: window lineage, not value lineage
SELECT LAG(amount, 1, 0) OVER (PARTITION BY customer_id ORDER BY ordered_at) AS previous FROM orders
