-- Each country's biggest customer by paid amount.
WITH totals AS (
    SELECT c.country, c.name, SUM(o.amount) AS total
    FROM orders AS o
    JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.status = 'paid'
    GROUP BY c.country, c.name
)
SELECT country, name, total
FROM totals
QUALIFY ROW_NUMBER() OVER (PARTITION BY country ORDER BY total DESC) = 1
ORDER BY total DESC
