-- dialect: bigquery
-- schema: none
-- description: SELECT without FROM: constants, no sources
SELECT 1 AS one, 'x' AS letter, 2 + 3 AS five
