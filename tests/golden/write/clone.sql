-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: CREATE TABLE … CLONE copies every column as it is
CREATE TABLE orders_backup CLONE orders
