-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: UPDATE … SET col = constant WHERE …: the written column has no value source; the WHERE decides which rows change
UPDATE orders SET status = 'void' WHERE amount < 0
