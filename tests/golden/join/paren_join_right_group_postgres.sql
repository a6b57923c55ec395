-- dialect: postgres
-- schema: shop.yaml
-- description: a parenthesised join as the right side of a LEFT JOIN (two levels): the group joins first, every customer is kept, o and i are the padded side
SELECT c.name, o.amount, i.quantity
FROM customers AS c LEFT JOIN ((orders AS o JOIN order_items AS i ON i.order_id = o.order_id)) ON o.customer_id = c.customer_id
