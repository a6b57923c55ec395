-- dialect: postgres
-- schema: shop.yaml
-- description: a parenthesised join as a FROM item
SELECT o.order_id, p.category FROM orders AS o JOIN (order_items AS i JOIN products AS p ON i.product_id = p.product_id) ON o.order_id = i.order_id
