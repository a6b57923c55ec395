-- dialect: duckdb
-- schema: {"sales": {"region": "varchar", "quarter": "varchar", "amount": "int", "units": "int"}}
-- description: DuckDB's UNPIVOT statement is the UNPIVOT clause: the other columns kept, the label a constant, the value from each listed column; NULL values dropped (control); a CTE and a subquery may hold it
WITH u AS (UNPIVOT sales ON amount, units INTO NAME measure VALUE val) SELECT * FROM u
