-- dialect: postgres
-- schema: shop.yaml
-- description: FETCH FIRST n ROWS ONLY
SELECT name FROM customers ORDER BY name FETCH FIRST 3 ROWS ONLY
