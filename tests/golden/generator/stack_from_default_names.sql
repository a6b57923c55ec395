-- dialect: spark
-- schema: shop.yaml
-- description: STACK in FROM, as a lateral join: default names col0, col1
SELECT o.order_id, s.col0, s.col1 FROM orders AS o, LATERAL stack(2, 'status', o.status, 'amount', CAST(o.amount AS STRING)) AS s
