-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB CREATE TABLE AS with duplicate output names (trial 30): the table is created with columns name, name_1
CREATE TABLE named AS SELECT c.name, p.name FROM customers AS c CROSS JOIN products AS p
