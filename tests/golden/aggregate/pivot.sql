-- dialect: snowflake
-- schema: shop.yaml
-- description: PIVOT: an aggregate grouped by the columns the PIVOT does not name; each pivoted column is the measure filtered on its value (control from the pivot column)
SELECT * FROM (SELECT customer_id, status, amount FROM orders) PIVOT (SUM(amount) FOR status IN ('paid', 'open'))
