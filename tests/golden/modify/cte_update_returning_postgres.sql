-- dialect: postgres
-- schema: shop_writes.yaml
-- description: Postgres UPDATE … FROM … RETURNING in a CTE: RETURNING shows the new row (a SET column returns its assigned value) and may read the FROM table; the join is the rows' lineage
WITH changed AS (
  UPDATE customers SET segment = s.segment FROM customers_staging s
  WHERE s.customer_id = customers.customer_id AND NOT s.deleted
  RETURNING customers.customer_id, customers.segment, s.name AS staged_name
)
SELECT customer_id, segment, staged_name FROM changed
