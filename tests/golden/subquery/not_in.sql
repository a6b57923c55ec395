-- dialect: bigquery
-- schema: shop.yaml
-- description: NOT IN (subquery)
SELECT product_id FROM products WHERE product_id NOT IN (SELECT product_id FROM returns)
