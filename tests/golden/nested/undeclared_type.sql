-- dialect: postgres
-- schema: none
-- description: a field of a column whose type is not declared: conservative, with the reason
SELECT t.s.x AS x FROM t
