-- dialect: snowflake
-- schema: shop.yaml
-- description: PIVOT … AS p(c, paid, open): the alias list renames the pivot's outputs by position (the group key, then each pivoted value)
SELECT p.c, p.paid FROM (SELECT customer_id, status, amount FROM orders) PIVOT (SUM(amount) FOR status IN ('paid', 'open')) AS p(c, paid, open)
