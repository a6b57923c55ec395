-- dialect: snowflake
-- schema: none
-- description: the same alias list over a table without a schema: c renames one of its unknown group-key columns (unknown, said), never a column named c
SELECT c, paid FROM orders PIVOT (SUM(amount) FOR status IN ('paid', 'open')) AS p(c, paid, open)
