-- dialect: tsql
-- schema: shop_writes.yaml
-- description: T-SQL SELECT @v = MAX(x) FROM t assigns the variable from the query (no result set): a later read carries the query's lineage, said uncertain, as SET @v = (SELECT ...) does; mixing an assignment with a returned column is refused
DECLARE @cutoff DECIMAL(12, 2);
SELECT @cutoff = MAX(amount) FROM orders WHERE status = 'paid';
INSERT INTO customer_totals (customer_id, total) SELECT customer_id, @cutoff FROM orders WHERE amount > @cutoff;
SELECT @cutoff = MIN(amount), order_id FROM orders;
