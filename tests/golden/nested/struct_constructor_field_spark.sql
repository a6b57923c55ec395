-- dialect: spark
-- schema: shop.yaml
-- description: Spark named_struct and struct(... AS name): a field read out of the constructor that names it is that field's expression
SELECT
  named_struct('id', order_id, 'total', amount).total AS total,
  struct(status AS s, customer_id AS c).c AS customer
FROM orders
