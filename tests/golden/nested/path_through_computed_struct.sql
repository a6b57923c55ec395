-- dialect: duckdb
-- schema: nested.yaml
-- description: a field of a struct a constructor built in a derived table is that field's own value (upper of the nested path, exact), as when the access is written inline; the other field (n) is no source
SELECT s.c.city AS city FROM (SELECT {'city': upper(customer.address.city), 'n': order_id} AS c FROM orders) AS s
