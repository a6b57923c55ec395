-- dialect: postgres
-- schema: none
-- description: (SELECT a, * FROM t) AS u(r, m): r is a, exactly; m names the column at position 2, one of t's unknown columns (never t.m, which reading the name through the star would give)
SELECT r, m, z FROM (SELECT a, * FROM t) AS u(r, m)
