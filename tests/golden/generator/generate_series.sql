-- dialect: postgres
-- schema: nested.yaml
-- description: generate_series of constants: generated values with no column sources
SELECT d AS day FROM generate_series(DATE '2024-01-01', DATE '2024-01-31', INTERVAL '1 day') AS d
