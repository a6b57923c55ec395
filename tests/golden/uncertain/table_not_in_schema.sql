-- dialect: postgres
-- schema: shop.yaml
-- description: a table the schema given does not declare is read without one and said in uncertain, with the closest declared names
SELECT o.order_id, o.amount FROM ordrs AS o WHERE o.status = 'paid'
