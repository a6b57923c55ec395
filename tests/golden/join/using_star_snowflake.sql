-- dialect: snowflake
-- schema: shop.yaml
-- description: SELECT * over a USING join in Snowflake (trial 26): where it puts the join column is not known, so the positions the two orders disagree on are either column, conservative
SELECT * FROM order_items JOIN products USING (product_id)
