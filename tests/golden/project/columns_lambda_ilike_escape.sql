-- dialect: duckdb
-- schema: {"events": {"id": "int", "A_total": "int", "a_count": "int", "ab": "int", "Amount": "decimal"}}
-- description: ILIKE with ESCAPE and NOT IN over the column names, inside an aggregate: the columns DuckDB picks (A_total, a_count), each summed, exact
SELECT sum(COLUMNS(lambda c: c ILIKE 'a!_%' ESCAPE '!' AND c NOT IN ('ab'))) FROM events
