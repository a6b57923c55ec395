-- dialect: duckdb
-- schema: none
-- description: s.a with no FROM item called s and two tables without a schema: s is a struct column of either, both listed, conservative
SELECT s.a AS a FROM t1 JOIN t2 ON t1.id = t2.id
