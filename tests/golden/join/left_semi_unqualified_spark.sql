-- dialect: spark
-- schema: semi.yaml
-- description: LEFT SEMI JOIN: an unqualified column both tables have is the left table's (only the ON condition sees s), not ambiguous
SELECT a FROM t LEFT SEMI JOIN s ON t.id = s.id
