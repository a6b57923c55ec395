-- dialect: databricks
-- schema: shop.yaml
-- description: a pivot over a pivot, consuming its renamed columns: the second groups by b (the first's 'open' total) and pivots a on cust
SELECT * FROM (SELECT customer_id, status, amount FROM orders) PIVOT (SUM(amount) FOR status IN ('paid', 'open')) AS p(cust, a, b) PIVOT (MAX(a) FOR cust IN (1, 2)) AS q(b_total, one, two)
