-- dialect: tsql
-- schema: shop_writes.yaml
-- description: DELETE TOP (10) FROM t targets t (TOP is a row limit, which rows it removes is arbitrary: no source)
DELETE TOP (10) FROM orders WHERE status = 'void'
