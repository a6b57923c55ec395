-- dialect: duckdb
-- schema: none
-- description: columns a query names on a schema-less table are exact
SELECT user_id, kind FROM events WHERE ts > DATE '2024-01-01'
