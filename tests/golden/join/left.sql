-- dialect: postgres
-- schema: shop.yaml
-- description: LEFT JOIN with an extra ON predicate: every ON column is join lineage
SELECT c.name, o.amount FROM customers AS c LEFT JOIN orders AS o ON o.customer_id = c.customer_id AND o.status = 'paid'
