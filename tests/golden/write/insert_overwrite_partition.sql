-- dialect: spark
-- schema: shop_writes.yaml
-- description: INSERT OVERWRITE with a static partition: the partition column is written with a constant
INSERT OVERWRITE TABLE daily_sales PARTITION (dt = '2024-01-01')
SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id
