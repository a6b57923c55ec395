-- dialect: spark
-- schema: shop.yaml
-- description: LIMIT … OFFSET in a derived table: the order key picks the rows (control); the outer GROUP BY keeps no order
SELECT status, COUNT(*) AS n FROM (SELECT status, ordered_at FROM orders ORDER BY ordered_at LIMIT 100 OFFSET 10) AS t GROUP BY status
