-- dialect: snowflake
-- schema: shop.yaml
-- description: MATCH_RECOGNIZE ONE ROW PER MATCH outputs the partitioning columns then the measures: PARTITION BY is grouping, the DEFINE columns and ORDER BY keys control (they decide which rows form a match), a measure's arguments its values; MATCH_NUMBER() has no column source (field trial 21)
SELECT *
FROM orders
MATCH_RECOGNIZE (
  PARTITION BY customer_id
  ORDER BY ordered_at
  MEASURES FIRST(order_id) AS first_order, LAST(up.amount) AS peak, COUNT(*) AS orders_in_run, MATCH_NUMBER() AS run
  ONE ROW PER MATCH
  PATTERN (start up+)
  DEFINE up AS up.amount > PREV(up.amount)
);
