-- dialect: duckdb
-- schema: {"t": {"a": "int", "b": "varchar"}}
-- description: a named window defined on another (WINDOW base AS (PARTITION BY b), w AS (base ORDER BY a); DuckDB's test_window_clause.test): OVER base is partitioned by b only, OVER w by b and ordered by a, as the inline OVER (base ORDER BY a) (field trial 58: OVER base was answered with w's ORDER BY column, OVER w refused)
SELECT count(*) OVER base AS x, count(*) OVER w AS y, a FROM t WINDOW base AS (PARTITION BY b), w AS (base ORDER BY a);
SELECT count(*) OVER (w ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS z FROM t WINDOW base AS (PARTITION BY b), w AS (base ORDER BY a)
