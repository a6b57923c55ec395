-- dialect: postgres
-- schema: shop.yaml
-- description: NATURAL JOIN merges the columns both sides have (order_id, product_id)
SELECT * FROM order_items NATURAL JOIN returns
