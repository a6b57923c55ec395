-- dialect: databricks
-- schema: none
-- description: INLINE over structs whose fields are not declared, no names given: one field * read from the array, conservative, said (was dropped from the answer)
SELECT order_id, inline(items) FROM raw_orders
