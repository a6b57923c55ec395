-- dialect: snowflake
-- schema: shop.yaml
-- description: UNPIVOT of a pivot's renamed columns, itself renamed by an alias list: who, what (a label: no source), how_much
SELECT * FROM (SELECT customer_id, status, amount FROM orders) PIVOT (SUM(amount) FOR status IN ('paid', 'open')) AS p(cust, paid, opened) UNPIVOT (total FOR kind IN (paid, opened)) AS u(who, what, how_much)
