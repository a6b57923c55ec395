-- dialect: duckdb
-- schema: nested.yaml
-- description: a nested path read by a WHERE: control lineage with the path
SELECT order_id FROM orders WHERE customer.address.zip LIKE '35%'
