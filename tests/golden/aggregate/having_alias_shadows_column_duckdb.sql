-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "int"}}
-- description: HAVING a, where a is a select alias and a column: the column when it is a grouping key (2nd statement), else the alias — an ungrouped column cannot be read there (field trial 27)
SELECT sum(b) AS a FROM t1 GROUP BY id HAVING a > 150;
SELECT sum(b) AS a FROM t1 GROUP BY a HAVING a > 15;
