-- dialect: postgres
-- schema: shop.yaml
-- description: a filter on the padded side of a LEFT JOIN, written inside the derived table: it decides which rows match (join), as in ON (left_join_filter_in_on)
SELECT c.name, o.amount FROM customers AS c LEFT JOIN (SELECT customer_id, amount FROM orders WHERE status = 'paid') AS o ON c.customer_id = o.customer_id
