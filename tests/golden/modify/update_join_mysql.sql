-- dialect: mysql
-- schema: shop_writes.yaml
-- description: MySQL's UPDATE t1 JOIN t2 ON … SET: ON is the join, WHERE is control
UPDATE orders o JOIN customers c ON o.customer_id = c.customer_id
SET o.status = c.segment
WHERE c.country = 'NL'
