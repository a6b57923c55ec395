-- dialect: postgres
-- schema: shop.yaml
-- description: EXCEPT ALL
SELECT product_id FROM order_items EXCEPT ALL SELECT product_id FROM returns
