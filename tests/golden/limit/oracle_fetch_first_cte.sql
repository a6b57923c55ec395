-- dialect: oracle
-- schema: shop.yaml
-- description: FETCH FIRST in a CTE: the CTE's rows are the 5 largest orders (control from amount); the outer query orders by name only
WITH big AS (SELECT customer_id, amount FROM orders ORDER BY amount DESC FETCH FIRST 5 ROWS ONLY)
SELECT c.name, big.amount FROM big JOIN customers c ON c.customer_id = big.customer_id ORDER BY c.name
