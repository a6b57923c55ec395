-- dialect: postgres
-- schema: shop.yaml
-- description: FULL JOIN … USING: the merged column is COALESCE(left, right)
SELECT customer_id FROM orders FULL JOIN customers USING (customer_id)
