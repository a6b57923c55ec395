-- dialect: hive
-- schema: none
-- description: an unqualified column in a join of tables without a schema: conservative, a candidate from each side
SELECT a, b FROM t1 JOIN t2 ON t1.id = t2.id
