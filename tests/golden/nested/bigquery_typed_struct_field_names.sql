-- dialect: bigquery
-- schema: {"t": {"id": "INT64", "name": "STRING"}}
-- description: a typed struct (STRUCT<a INT64, bB STRING>(…), CAST(… AS STRUCT<…>), ARRAY<STRUCT<…>>[…]) keeps its field names as written: a, bB (they came out upper-cased, A and BB)
SELECT STRUCT<a INT64, bB STRING>(id, name).* FROM t;
SELECT CAST(NULL AS STRUCT<a INT64, bB STRING>).*;
SELECT * FROM UNNEST(ARRAY<STRUCT<a INT64, bB STRING>>[(1, 'x')]);
SELECT s.bB FROM (SELECT STRUCT<a INT64, bB STRING>(id, name) AS s FROM t)
