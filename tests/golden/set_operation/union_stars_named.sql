-- dialect: duckdb
-- schema: none
-- description: UNION ALL of two schema-less SELECT * branches: a column named through the result is the first branch's by name; the second branch's is at that position, unknown (never matched by name)
SELECT u.x FROM (SELECT * FROM a UNION ALL SELECT * FROM b) AS u
