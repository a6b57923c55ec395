-- dialect: postgres
-- schema: shop.yaml
-- description: LIKE and BETWEEN read their columns as controls
SELECT name FROM customers WHERE country LIKE 'N%' AND segment BETWEEN 'a' AND 'm'
