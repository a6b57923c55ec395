-- dialect: mysql
-- schema: shop_writes.yaml
-- description: CREATE TABLE t LIKE s: t has s's columns for the statements after it (it was a table without columns)
CREATE TABLE returns_copy LIKE returns;
SELECT * FROM returns_copy;
