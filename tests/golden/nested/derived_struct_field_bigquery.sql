-- dialect: bigquery
-- schema: shop.yaml
-- description: a field of a STRUCT built in a derived table, read outside it (d.s.a), is that field's own value: exact, only its column; the whole struct still reads both
SELECT d.s.a AS a, d.s.b AS b_upper, d.s AS whole
FROM (SELECT STRUCT(o.customer_id AS a, UPPER(o.status) AS b) AS s FROM orders AS o WHERE o.amount > 0) AS d;
