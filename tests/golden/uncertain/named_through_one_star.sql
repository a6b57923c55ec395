-- dialect: bigquery
-- schema: none
-- description: a column named through a derived table whose SELECT * covers one schema-less table is that table's column, exactly
SELECT user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn FROM users) WHERE rn = 1
