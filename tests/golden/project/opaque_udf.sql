-- dialect: bigquery
-- schema: shop.yaml
-- description: a function nobody describes is opaque: every argument, conservative, with a reason
SELECT my_udf(amount, status) AS x, order_id FROM orders
