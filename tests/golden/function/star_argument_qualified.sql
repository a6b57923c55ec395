-- dialect: snowflake
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: t.* as a function argument stands for the columns of t only
SELECT OBJECT_CONSTRUCT(t1.*) AS o, HASH(t2.* EXCLUDE (id)) AS h FROM t1 JOIN t2 ON t1.id = t2.id
