-- dialect: snowflake
-- schema: shop.yaml
-- description: a procedure call and a load from files: their lineage is unknown, said per statement
CALL refresh_orders();
COPY INTO orders FROM @landing/orders/
