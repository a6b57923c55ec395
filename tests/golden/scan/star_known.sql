-- dialect: postgres
-- schema: shop.yaml
-- description: SELECT * over a known table expands to its declared columns, in order
SELECT * FROM customers
