-- dialect: postgres
-- schema: shop_writes.yaml
-- description: DROP and TRUNCATE move no data: their target is named, nothing else to explain
DROP TABLE IF EXISTS daily_sales;
TRUNCATE TABLE customer_totals
