-- dialect: duckdb
-- schema: nested.yaml
-- description: a part of a field a struct constructor computed in a derived table: its sources are read as that field's, whole (conservative), as when the access is written inline
SELECT s.c.city AS city FROM (SELECT {'city': upper(customer.address.city), 'n': order_id} AS c FROM orders) AS s
