-- dialect: bigquery
-- schema: {"t": {"id": "INT64", "arr": null, "ints": "ARRAY<INT64>"}}
-- description: SELECT * over BigQuery's UNNEST of elements whose type is not declared: a struct element lists its fields, any other element one column (f0_ or the alias) — so * stands for columns not known (conservative, said), never f0_ exact; the element's alias is still read exactly by name; a name read through a derived table's * is a field of the elements, conservative (it was refused); typed integers keep f0_, exact
SELECT * FROM t, UNNEST(t.arr);
SELECT * FROM t, UNNEST(t.arr) AS e;
SELECT e FROM t, UNNEST(t.arr) AS e;
SELECT x FROM (SELECT * FROM t, UNNEST(t.arr));
SELECT id FROM (SELECT * FROM t, UNNEST(t.arr));
SELECT x FROM (SELECT * FROM u, UNNEST(u.arr));
SELECT * FROM t, UNNEST(t.ints)
