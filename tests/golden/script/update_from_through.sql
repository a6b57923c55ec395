-- dialect: postgres
-- schema: shop_writes.yaml
-- description: UPDATE … FROM through the script: the join with the source and the WHERE decide the set column only; the new value is the source's
-- through-script: yes
CREATE TEMP TABLE totals AS SELECT customer_id, name, 0 AS total FROM customers;
UPDATE totals SET total = o.amount FROM orders AS o WHERE o.customer_id = totals.customer_id AND o.status = 'paid';
SELECT name, total FROM totals;
