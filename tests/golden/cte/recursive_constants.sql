-- dialect: duckdb
-- schema: none
-- description: a recursive counter reads no column at all: no sources, nothing uncertain
WITH RECURSIVE nums(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM nums WHERE n < 10) SELECT n FROM nums
