-- dialect: postgres
-- schema: {"t": {"id": "int", "b": "varchar", "d": "varchar"}, "s": {"id": "int", "c": "varchar"}}
-- description: through the script, an UPDATE with no WHERE and no joined source sets every row: the old values of the set columns are no source after it, the other columns keep theirs (field trial 33)
-- through-script: yes
CREATE TEMP TABLE x AS SELECT id, b, d FROM t;
UPDATE x SET b = 'k', d = (SELECT c FROM s WHERE s.id = x.id);
SELECT id, b, d FROM x;
