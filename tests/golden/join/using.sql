-- dialect: postgres
-- schema: shop.yaml
-- description: USING: the unqualified merged column is the left one
SELECT customer_id, name, amount FROM orders JOIN customers USING (customer_id)
