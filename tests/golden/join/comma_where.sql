-- dialect: duckdb
-- schema: shop.yaml
-- description: comma join: the WHERE conjunct relating both items is the join predicate; the other stays a filter
SELECT o.order_id, c.name FROM orders AS o, customers AS c WHERE o.customer_id = c.customer_id AND o.status = 'paid'
