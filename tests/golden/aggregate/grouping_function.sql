-- dialect: postgres
-- schema: shop.yaml
-- description: GROUPING(k) says which keys a ROLLUP row rolled up: no value sources (its value comes from the grouping set), the keys are grouping sources of every field
SELECT customer_id, status, GROUPING(customer_id) AS g, SUM(amount) AS total FROM orders GROUP BY ROLLUP (customer_id, status)
