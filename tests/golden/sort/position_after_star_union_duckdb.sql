-- dialect: duckdb
-- schema: none
-- description: ORDER BY 2 after a UNION of two SELECT * over tables without a schema: the second column is one of theirs (unknown), not refused as out of range
SELECT * FROM t UNION SELECT * FROM u ORDER BY 2
