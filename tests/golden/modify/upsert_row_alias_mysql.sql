-- dialect: mysql
-- schema: shop_writes.yaml
-- description: MySQL 8.0.19 row alias: VALUES (...) AS new [(m, n, ...)] names the inserted row in ON DUPLICATE KEY UPDATE (new.total, or new.t by position); a subquery there may read it
INSERT INTO customer_totals (customer_id, total, order_count) VALUES (7, 10.5, 1) AS new
ON DUPLICATE KEY UPDATE total = customer_totals.total + new.total;
INSERT INTO customer_totals (customer_id, total, order_count) VALUES (7, 10.5, 1) AS new(c, t, n)
ON DUPLICATE KEY UPDATE total = (SELECT SUM(amount) FROM orders WHERE orders.customer_id = new.c), order_count = n + order_count;
