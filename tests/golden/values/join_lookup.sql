-- dialect: duckdb
-- schema: shop.yaml
-- description: a VALUES lookup joined to a table: its columns have no value sources but the join keys count
SELECT o.order_id, s.label FROM orders AS o JOIN (VALUES ('paid', 'Paid'), ('open', 'Open')) AS s(status, label) ON o.status = s.status
