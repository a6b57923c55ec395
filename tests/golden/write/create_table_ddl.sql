-- dialect: postgres
-- schema: shop_writes.yaml
-- description: CREATE TABLE with column definitions only: a table with no rows, nothing written
CREATE TABLE audit_log (id INT, message TEXT)
