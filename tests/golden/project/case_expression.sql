-- dialect: postgres
-- schema: shop.yaml
-- description: every column a CASE reads is a value input, conditions included
SELECT order_id, CASE WHEN status = 'paid' THEN amount ELSE 0 END AS paid_amount FROM orders
