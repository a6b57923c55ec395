-- dialect: spark
-- schema: shop.yaml
-- description: Spark LEFT SEMI JOIN
SELECT o.order_id FROM orders o LEFT SEMI JOIN returns r ON r.order_id = o.order_id
