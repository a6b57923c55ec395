-- dialect: snowflake
-- schema: shop.yaml
-- description: EXECUTE IMMEDIATE of a constant string: the statement in it is analysed in place
EXECUTE IMMEDIATE 'INSERT INTO void_orders SELECT order_id, amount FROM orders WHERE status = ''void'''
