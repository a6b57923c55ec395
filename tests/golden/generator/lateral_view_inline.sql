-- dialect: spark
-- schema: nested.yaml
-- description: LATERAL VIEW INLINE(array of structs): one column per struct field, renamed by the aliases
SELECT order_id, item_sku, item_qty FROM orders LATERAL VIEW INLINE(items) t AS item_sku, item_qty, item_price
