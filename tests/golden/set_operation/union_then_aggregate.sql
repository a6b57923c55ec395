-- dialect: snowflake
-- schema: shop.yaml
-- description: an aggregate over a UNION ALL derived table
SELECT status, COUNT(*) AS n FROM (SELECT status FROM orders UNION ALL SELECT reason FROM returns) AS u GROUP BY status
