-- dialect: duckdb
-- schema: {"sales": {"region": "varchar", "quarter": "varchar", "amount": "int", "units": "int"}}
-- description: DuckDB's PIVOT statement without USING: each cell counts its rows (count(*)): no value source, grouping from the keys, control from the ON column
PIVOT sales ON quarter IN ('Q1', 'Q2') GROUP BY region
