-- dialect: snowflake
-- schema: shop.yaml
-- description: a Snowflake session variable $x set from a query: its lineage is the query's; $x is never a column
SET big = (SELECT MAX(amount) FROM orders WHERE status = 'paid');
SELECT order_id, $big AS threshold FROM orders WHERE amount >= $big * 0.9;
