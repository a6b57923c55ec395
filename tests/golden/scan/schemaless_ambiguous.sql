-- dialect: duckdb
-- schema: none
-- description: an unqualified column that two schema-less tables could hold: conservative, every candidate
SELECT a.x, y FROM t1 AS a JOIN t2 AS b ON a.id = b.id
