-- dialect: snowflake
-- schema: {"t": {"id": "int", "parent": "int", "a": "int", "b": "int"}}
-- description: the hierarchy START WITH parent IS NULL CONNECT BY PRIOR id = parent (now read as this very twin: cte/connect_by_snowflake) written as the recursive CTE it stands for: control from the root condition, join from the parent link
WITH RECURSIVE r (id, b) AS (
  SELECT id, b FROM t WHERE parent IS NULL
  UNION ALL
  SELECT t.id, t.b FROM t JOIN r ON t.parent = r.id
)
SELECT id, b FROM r
