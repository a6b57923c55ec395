-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: a lambda over the column names in a form prism_lineage evaluates (LIKE, OR, =): the columns DuckDB picks (a, b), each exact, as COLUMNS(['a', 'b']) would
SELECT COLUMNS(lambda c: c LIKE '%a%' OR c = 'b') FROM t1
