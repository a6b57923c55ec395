-- dialect: spark
-- schema: none
-- description: FROM t AS u(r) over a table without a schema: r is its first column, which nobody declared (unknown), never t.r; a column named otherwise is that column of t
SELECT r, x FROM t AS u(r)
