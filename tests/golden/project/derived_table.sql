-- dialect: bigquery
-- schema: shop.yaml
-- description: a derived table's projection composes with the outer one; both WHEREs are controls
SELECT x.total FROM (SELECT order_id, amount + 1 AS total FROM orders WHERE status = 'paid') AS x WHERE x.order_id > 10
