-- dialect: duckdb
-- schema: none
-- description: an unqualified column in a correlated subquery when no table is declared: the inner table's or the enclosing query's, both conservative, said (field trial 06)
SELECT (SELECT MAX(t2.b) FROM t2 WHERE t2.id = a) AS m FROM t1
