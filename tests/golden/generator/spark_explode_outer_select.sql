-- dialect: spark
-- schema: nested.yaml
-- description: EXPLODE_OUTER in a select list (sqlglot's _ExplodeOuter, a subclass of Explode) is the generator, its column the element tags[] (field trial 46; it was a function of the whole array)
SELECT order_id, explode_outer(tags) AS tag FROM orders
