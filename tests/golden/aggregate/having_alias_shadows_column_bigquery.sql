-- dialect: bigquery
-- schema: shop.yaml
-- description: HAVING status where status is a select alias and an ungrouped column (trial 27): which one BigQuery reads is not known, so both, conservative
SELECT customer_id, SUM(amount) AS status FROM orders GROUP BY customer_id HAVING status > 100
