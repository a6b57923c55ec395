-- dialect: oracle
-- schema: shop.yaml
-- description: Oracle PIVOT p(…): renamed outputs read by name
SELECT cust, opened FROM (SELECT customer_id, status, amount FROM orders) PIVOT (SUM(amount) FOR status IN ('paid', 'open')) p(cust, paid, opened)
