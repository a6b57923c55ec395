-- dialect: tsql
-- schema: shop_writes.yaml
-- description: UPDATE x … FROM (SELECT … FROM t) AS x: the alias names a derived table over t, so t is written
UPDATE x SET st = 'flagged' FROM (SELECT order_id, status AS st FROM orders WHERE amount > 1000) AS x
