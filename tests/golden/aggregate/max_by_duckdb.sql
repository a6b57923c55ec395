-- dialect: duckdb
-- schema: shop.yaml
-- description: MAX_BY/MIN_BY/ARG_MAX/ARG_MIN(x, y [, n]) (trial 28): x is the value (aggregate); y orders the group and picks the kept x — sort (the key's own transformation), never value; n is a literal
SELECT customer_id, MAX_BY(status, ordered_at) AS latest, MIN_BY(status, ordered_at) AS first, ARG_MAX(amount, order_id) AS last_amount, ARG_MIN(amount, ordered_at + INTERVAL 1 DAY) AS first_amount, MAX_BY(order_id, amount, 2) AS top2 FROM orders GROUP BY customer_id
