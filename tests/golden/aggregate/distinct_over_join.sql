-- dialect: bigquery
-- schema: shop.yaml
-- description: COUNT(DISTINCT …) over a join, grouped by the other side
SELECT p.category, COUNT(DISTINCT i.order_id) AS orders FROM order_items AS i JOIN products AS p ON p.product_id = i.product_id GROUP BY p.category
