-- dialect: duckdb
-- schema: {"sales": {"region": "varchar", "quarter": "varchar", "amount": "int", "units": "int"}}
-- description: DuckDB's PIVOT statement with several ON columns: one column per combination of values (Q1_r1 …, DuckDB's names), each filtered on every ON column (control from quarter and region); several USING aggregates add their alias or text
PIVOT sales ON quarter IN ('Q1', 'Q2'), region IN ('r1') USING SUM(amount) AS total, max(units) GROUP BY units
