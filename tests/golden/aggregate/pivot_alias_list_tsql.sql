-- dialect: tsql
-- schema: shop.yaml
-- description: T-SQL PIVOT with bracketed values and a column alias list
SELECT p.cust, p.paid FROM (SELECT customer_id, status, amount FROM orders) AS src PIVOT (SUM(amount) FOR status IN ([paid], [open])) AS p(cust, paid, opened)
