-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: INSERT without a column list writes the target's declared columns in order (names as the schema spells them)
INSERT INTO customer_totals
SELECT customer_id, SUM(amount), COUNT(*) FROM orders GROUP BY customer_id
