-- dialect: spark
-- schema: nested.yaml
-- description: Spark's INLINE_OUTER (sqlglot reads it as an anonymous call) is INLINE keeping a row for an empty array: one column per struct field, each its field of the elements, named by the alias list (field trial 46; it was one field named INLINE_OUTER(items))
SELECT order_id, inline_outer(items) AS (item_sku, item_qty, item_price) FROM orders
