-- dialect: postgres
-- schema: shop_writes.yaml
-- description: UPDATE … FROM a derived table: the WHERE relating target and source is the join
UPDATE customers SET segment = t.segment
FROM (SELECT customer_id, CASE WHEN SUM(amount) > 1000 THEN 'gold' ELSE 'standard' END AS segment
      FROM orders GROUP BY customer_id) AS t
WHERE customers.customer_id = t.customer_id
