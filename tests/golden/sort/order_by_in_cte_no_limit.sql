-- dialect: snowflake
-- schema: shop.yaml
-- description: an ORDER BY without a limit in a CTE has no effect: no edge outside it; the statement's own ORDER BY is sort
WITH o AS (SELECT order_id, amount FROM orders ORDER BY ordered_at)
SELECT order_id FROM o ORDER BY amount
