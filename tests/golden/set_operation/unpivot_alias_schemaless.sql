-- dialect: databricks
-- schema: none
-- description: UNPIVOT … AS u(r, m, v) over a table without a schema: r renames one of the unknown kept columns (unknown), m is the label, v the values
SELECT r, m, v FROM sales UNPIVOT (amount FOR month IN (jan, feb)) AS u(r, m, v)
