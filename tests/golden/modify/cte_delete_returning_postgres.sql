-- dialect: postgres
-- schema: shop_writes.yaml
-- description: Postgres data-modifying CTE: WITH moved AS (DELETE … RETURNING *) INSERT … SELECT FROM moved answers both writes; the CTE's rows are the deleted rows (their control lineage is the DELETE's WHERE)
WITH moved AS (DELETE FROM orders WHERE status = 'void' RETURNING *)
INSERT INTO returns (order_id, reason) SELECT order_id, status FROM moved
