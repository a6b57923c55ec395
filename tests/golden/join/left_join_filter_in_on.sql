-- dialect: postgres
-- schema: shop.yaml
-- description: the same filter written in ON: the same answer as left_join_filter_in_derived
SELECT c.name, o.amount FROM customers AS c LEFT JOIN orders AS o ON c.customer_id = o.customer_id AND o.status = 'paid'
