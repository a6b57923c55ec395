-- dialect: mysql
-- schema: shop_writes.yaml
-- description: MySQL ON DUPLICATE KEY UPDATE: VALUES(c) is the value the row would have inserted into c; an unqualified column is the existing row's (c = c + 1); a column of the SELECT's tables is that column of the row the SELECT gave; the key (PRIMARY KEY / UNIQUE, not in a schema) is said uncertain
INSERT INTO customer_totals (customer_id, total, order_count)
SELECT customer_id, amount, 1 FROM orders WHERE status = 'paid'
ON DUPLICATE KEY UPDATE total = total + VALUES(total), order_count = order_count + 1, customer_id = orders.customer_id;
