-- dialect: postgres
-- schema: shop.yaml
-- description: >= ALL (correlated subquery), the outer table named by its table name
SELECT order_id FROM orders WHERE amount >= ALL (SELECT o2.amount FROM orders AS o2 WHERE o2.customer_id = orders.customer_id)
