-- dialect: duckdb
-- schema: {"sales": {"region": "varchar", "quarter": "varchar", "amount": "int", "units": "int"}}
-- description: DuckDB's PIVOT statement without IN and without GROUP BY groups by every column ON and USING do not name (region, units, kept as fields); the pivoted columns' names are unknown ('*', said)
PIVOT sales ON quarter USING SUM(amount)
