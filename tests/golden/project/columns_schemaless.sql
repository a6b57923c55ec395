-- dialect: duckdb
-- schema: none
-- description: without a schema the columns a regex picks are unknown (t1.*, unknown, uncertain); a listed name is read by name
SELECT COLUMNS('^[ab]$'), COLUMNS(['id']) FROM t1
