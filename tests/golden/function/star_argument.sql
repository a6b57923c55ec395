-- dialect: snowflake
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: * as a function argument stands for every column (trial 08): OBJECT_CONSTRUCT(*) reads each (expression), HASH(*) masks each
SELECT OBJECT_CONSTRUCT(*) AS o, HASH(*) AS h FROM t1
