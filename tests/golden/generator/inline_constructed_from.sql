-- dialect: spark
-- schema: none
-- description: INLINE of a constant array of structs in FROM: Spark's default names col1, col2 (was an empty select list)
SELECT * FROM inline(array(struct(1, 'a'), struct(2, 'b')))
