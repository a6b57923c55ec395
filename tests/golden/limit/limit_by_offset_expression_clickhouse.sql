-- dialect: clickhouse
-- schema: shop.yaml
-- description: ClickHouse LIMIT m, n BY expr with an alias key (trial 31): keys may be select aliases or expressions over the input (not selected)
SELECT order_id, status AS s FROM orders ORDER BY ordered_at LIMIT 1, 2 BY s, toDate(ordered_at)
