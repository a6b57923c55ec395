-- dialect: mysql
-- schema: shop_writes.yaml
-- description: MySQL SELECT ... INTO @v and SELECT @v := ... assign the variable from the query: later reads carry its lineage, said uncertain; the := form returns its rows too
SELECT MAX(amount) INTO @top FROM orders;
SELECT @n := COUNT(*), MIN(ordered_at) AS first_at FROM orders WHERE status = 'paid';
INSERT INTO customer_totals (customer_id, total, order_count) SELECT customer_id, @top, @n FROM customers;
