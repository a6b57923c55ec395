-- dialect: bigquery
-- schema: nested.yaml
-- description: GROUP BY customer.name, then SELECT orders.customer.name: the same key spelt another way is that key (nested_access, exact), not a field of any value of the group
SELECT orders.customer.name AS name, COUNT(*) AS n
FROM orders
GROUP BY customer.name
