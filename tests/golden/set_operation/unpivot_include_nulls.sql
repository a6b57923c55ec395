-- dialect: databricks
-- schema: {"sales": {"region": "varchar", "jan": "int", "feb": "int", "mar": "int"}}
-- description: UNPIVOT INCLUDE NULLS keeps every row: no control lineage
SELECT * FROM sales UNPIVOT INCLUDE NULLS (amount FOR month IN (jan AS january, feb AS february))
