-- dialect: databricks
-- schema: shop.yaml
-- description: INLINE(ARRAY(STRUCT(...), STRUCT(...))): one column per struct field, named as the first struct names them; each is that field of every struct
SELECT order_id, inline(array(struct(status AS label, amount AS measure), struct('double', amount * 2))) FROM orders
