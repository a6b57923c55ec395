-- dialect: duckdb
-- schema: {x: {a: int, b: int}, y: {c: int, b: int}, o: {p: int, q: int, r: int}}
-- description: INSERT … SELECT * over a USING join in DuckDB (trial 26): positions follow DuckDB's order (a, b, c), so p ← x.a, q ← x.b
INSERT INTO o SELECT * FROM x JOIN y USING (b)
