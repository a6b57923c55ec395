-- dialect: postgres
-- schema: shop_writes.yaml
-- description: DELETE … USING: the WHERE relating the tables is the join, the rest control
DELETE FROM orders USING returns
WHERE orders.order_id = returns.order_id AND returns.reason = 'fraud'
