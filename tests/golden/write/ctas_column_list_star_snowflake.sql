-- dialect: snowflake
-- schema: none
-- description: CREATE TABLE x (a, b, c) AS SELECT *, 1 AS k FROM s: the star holds the first two names, c is the constant
CREATE TABLE x (a, b, c) AS SELECT *, 1 AS k FROM s
