-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: UPDATE reading the column it writes
UPDATE orders SET amount = amount * 1.1 WHERE status = 'open'
