-- dialect: postgres
-- schema: shop.yaml
-- description: (a, b) IN (SELECT x, y …): every column of the subquery is compared, so every one is a control
SELECT order_id FROM orders WHERE (customer_id, status) IN (SELECT customer_id, country FROM customers)
