-- dialect: postgres
-- schema: shop.yaml
-- description: WITH t (cid, total) AS (…): the column list renames by position
WITH t (cid, total) AS (SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id) SELECT cid, total FROM t
