-- dialect: postgres
-- schema: shop.yaml
-- description: ORDER BY 2, 1
SELECT name, country FROM customers ORDER BY 2, 1
