-- dialect: postgres
-- schema: shop.yaml
-- description: PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY amount): the ordered column is the value aggregated
SELECT status, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY amount) AS median_amount FROM orders WHERE customer_id > 1 GROUP BY status
