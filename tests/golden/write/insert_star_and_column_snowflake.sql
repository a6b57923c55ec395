-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: INSERT INTO t SELECT *, current_timestamp FROM s (s without a schema): Snowflake needs a value per column, so the star holds the first two and the last is the timestamp (never the timestamp written into total)
INSERT INTO customer_totals SELECT *, current_timestamp FROM staging_totals
