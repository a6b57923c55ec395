-- dialect: duckdb
-- schema: none
-- description: a whole row of a table whose columns are not in the schema is its unknown * (never an invented column named like the alias)
SELECT to_json(e) AS payload FROM events AS e
