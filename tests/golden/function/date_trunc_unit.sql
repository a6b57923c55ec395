-- dialect: postgres
-- schema: shop.yaml
-- description: DATE_TRUNC's unit is a keyword, not a value input: the month comes from ordered_at only
SELECT date_trunc('month', ordered_at) AS month, SUM(amount) AS total FROM orders GROUP BY 1
