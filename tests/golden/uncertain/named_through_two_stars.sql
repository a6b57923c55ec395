-- dialect: duckdb
-- schema: none
-- description: a column named through a derived table whose SELECT * covers two schema-less tables: it is that column of either (conservative), never just the last one's
SELECT x FROM (SELECT * FROM a JOIN b ON a.k = b.k) AS s
