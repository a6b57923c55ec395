-- dialect: duckdb
-- schema: shop.yaml
-- description: a CASE condition is a value input (the RFC: every scalar input of a projected expression), as its branches are
SELECT CASE WHEN status = 'paid' THEN amount ELSE 0 END AS paid_amount FROM orders
