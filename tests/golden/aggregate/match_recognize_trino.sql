-- dialect: trino
-- schema: shop.yaml
-- description: Trino MATCH_RECOGNIZE without PARTITION BY: no grouping source; a bare column in MEASURES is the match's value of it (an aggregate of the match's rows); CLASSIFIER() has no column source
SELECT status, label
FROM orders
MATCH_RECOGNIZE (
  ORDER BY order_id
  MEASURES status AS status, CLASSIFIER() AS label
  ONE ROW PER MATCH
  PATTERN (a b)
  DEFINE a AS amount < 10, b AS amount >= 10
);
