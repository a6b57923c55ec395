-- dialect: tsql
-- schema: shop_writes.yaml
-- description: UPDATE through a CTE writes the base table's column the CTE projects under another name (st is orders.status)
WITH neg AS (SELECT order_id AS oid, status AS st FROM orders WHERE amount < 0)
UPDATE neg SET st = 'negative'
