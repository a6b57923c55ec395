-- dialect: postgres
-- schema: {"t": {"id": "int", "b": "varchar"}, "s": {"id": "int", "c": "varchar"}}
-- description: through the script, a DELETE with no WHERE empties the table as TRUNCATE does: only rows written after it are read (field trial 33)
-- through-script: yes
CREATE TEMP TABLE x AS SELECT id, b FROM t;
DELETE FROM x;
INSERT INTO x SELECT id, c FROM s;
SELECT id, b FROM x;
