-- dialect: postgres
-- schema: shop.yaml
-- description: GROUP BY 1 names the first select item; COUNT(*) reads no column
SELECT status, COUNT(*) FROM orders GROUP BY 1
