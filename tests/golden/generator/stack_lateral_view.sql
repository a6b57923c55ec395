-- dialect: hive
-- schema: shop.yaml
-- description: LATERAL VIEW STACK(...) with an uneven count: the last row is padded, column j still holds arguments j, j+k, ...
SELECT c.customer_id, s.k, s.v FROM customers AS c LATERAL VIEW stack(2, 'name', c.name, 'segment') s AS k, v
