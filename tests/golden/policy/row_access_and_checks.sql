-- dialect: duckdb
-- schema: governed.yaml
-- description: a read of orders gets policy lineage from its row-access policy (and the mapping table it reads) and quality lineage from its checks
SELECT order_id, amount FROM orders
