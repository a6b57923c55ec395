-- dialect: snowflake
-- schema: none
-- description: without a schema, HASH(*) reads the table's unknown columns (t1.*, unknown), never nothing
SELECT OBJECT_CONSTRUCT(*) AS o, HASH(*) AS h FROM t1
