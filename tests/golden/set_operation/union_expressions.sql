-- dialect: bigquery
-- schema: shop.yaml
-- description: expressions in a UNION's inputs keep their transformation
SELECT amount * 2 AS x FROM orders UNION ALL SELECT price FROM order_items
