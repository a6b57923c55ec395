-- dialect: postgres
-- schema: shop.yaml
-- description: ORDER BY 2 after UNION ALL; output names come from the left input
SELECT name, country FROM customers UNION ALL SELECT name, category FROM products ORDER BY 2
