-- dialect: duckdb
-- schema: shop.yaml
-- description: a WHERE over an unknown function reads its argument conservatively (as the same filter over a derived table's field computed by it)
SELECT order_id FROM orders WHERE risk_score(amount) > 0.5
