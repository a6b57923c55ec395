-- dialect: postgres
-- schema: shop.yaml
-- description: DISTINCT ON an expression not selected
SELECT DISTINCT ON (LOWER(name)) name, country FROM customers
