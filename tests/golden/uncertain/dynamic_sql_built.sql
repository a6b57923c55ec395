-- dialect: bigquery
-- schema: shop.yaml
-- description: EXECUTE IMMEDIATE of a statement built at run time: what it reads and writes is unknown
EXECUTE IMMEDIATE CONCAT('SELECT ', column_name, ' FROM orders')
