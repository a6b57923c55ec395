-- dialect: snowflake
-- schema: shop.yaml
-- description: * ILIKE as a function argument reads the columns whose name matches, without case (HASH masks order_id and customer_id; OBJECT_CONSTRUCT over o.* ILIKE 'o%' reads order_id and ordered_at), never every column
SELECT HASH(* ILIKE '%_ID') AS key_hash, OBJECT_CONSTRUCT(o.* ILIKE 'o%') AS order_facts
FROM orders AS o
