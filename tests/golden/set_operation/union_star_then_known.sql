-- dialect: snowflake
-- schema: {"b": {"y": "int", "z": "int"}}
-- description: a schema-less star branch first, a declared branch second: a named column is the first branch's; from the second it is one of its columns, which one is unknown (conservative)
SELECT u.x FROM (SELECT * FROM a UNION ALL SELECT y, z FROM b) AS u
