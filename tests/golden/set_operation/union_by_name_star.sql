-- dialect: duckdb
-- schema: {"b": {"x": "int", "y": "int"}}
-- description: UNION ALL BY NAME with a schema-less star: a name the star may hold is read out of it by name (exact); its other columns stay unknown
SELECT * FROM a UNION ALL BY NAME SELECT x, y FROM b
