-- dialect: duckdb
-- schema: none
-- description: a bare VALUES statement: columns column1, column2, no sources
VALUES (1, 'x'), (2, 'y')
