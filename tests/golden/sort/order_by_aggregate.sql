-- dialect: postgres
-- schema: shop.yaml
-- description: ORDER BY SUM(amount): the sort key is an aggregate of amount (transformation aggregate), as ORDER BY an alias of it (order_by_alias)
SELECT customer_id FROM orders GROUP BY customer_id ORDER BY SUM(amount) DESC
