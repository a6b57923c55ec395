-- dialect: oracle
-- schema: shop.yaml
-- description: Oracle MATCH_RECOGNIZE (one row per match by default) read in a derived table: the outer query reads its measures by the clause's alias; a pattern variable's qualifier (paid.amount) names the column of the rows it matched
SELECT r.customer_id, r.paid_total
FROM orders
MATCH_RECOGNIZE (
  PARTITION BY customer_id
  ORDER BY ordered_at
  MEASURES SUM(paid.amount) AS paid_total
  PATTERN (placed paid+)
  DEFINE placed AS status = 'placed', paid AS status = 'paid'
) r
WHERE r.paid_total > 100;
