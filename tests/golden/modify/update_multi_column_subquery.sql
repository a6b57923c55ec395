-- dialect: postgres
-- schema: shop_writes.yaml
-- description: UPDATE … SET (a, b) = (SELECT x, y …): each column from the subquery column in its position
UPDATE customers SET (name, country) =
  (SELECT s.name, s.country FROM customers_staging s WHERE s.customer_id = customers.customer_id)
