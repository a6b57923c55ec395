-- dialect: postgres
-- schema: none
-- description: the anti-join shape over schema-less tables: id in the subquery is t2.id or the correlated t1.id, conservative (field trial 06)
SELECT id FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.k = id)
