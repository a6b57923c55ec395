-- dialect: postgres
-- schema: shop.yaml
-- description: > ANY (subquery)
SELECT order_id FROM orders WHERE amount > ANY (SELECT price FROM order_items WHERE quantity > 10)
