-- dialect: clickhouse
-- schema: shop.yaml
-- description: ClickHouse's -If combinator: sumIf(x, c) is SUM(x) FILTER (WHERE c), argMaxIf(a, b, c) is argMax(a, b) over the rows where c (field trial 37)
SELECT customer_id, countIf(status = 'paid') AS paid, sumIf(amount, status = 'paid') AS paid_amount, argMaxIf(order_id, amount, status = 'paid') AS biggest_paid FROM orders GROUP BY customer_id
