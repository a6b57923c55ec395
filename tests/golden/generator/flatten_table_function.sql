-- dialect: snowflake
-- schema: nested.yaml
-- description: TABLE(FLATTEN(v)): KEY reads the object's shape, VALUE its values, SEQ is made up by the engine
SELECT f.seq, f.key, f.value FROM events AS e, TABLE(FLATTEN(e.v)) AS f
