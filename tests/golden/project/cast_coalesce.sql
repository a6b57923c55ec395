-- dialect: postgres
-- schema: shop.yaml
-- description: casts and COALESCE are expressions over their inputs
SELECT CAST(amount AS INT) AS a, COALESCE(status, 'none') AS s, amount::TEXT AS t FROM orders
