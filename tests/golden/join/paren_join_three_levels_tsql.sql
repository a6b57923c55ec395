-- dialect: tsql
-- schema: shop.yaml
-- description: T-SQL: a join in three levels of parentheses, with a parenthesised group on the right of a LEFT JOIN
SELECT c.name, p.category
FROM (((customers AS c JOIN orders AS o ON o.customer_id = c.customer_id)
  LEFT JOIN (order_items AS i JOIN products AS p ON p.product_id = i.product_id) ON i.order_id = o.order_id))
