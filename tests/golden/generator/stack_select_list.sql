-- dialect: databricks
-- schema: shop.yaml
-- description: STACK(n, ...) in a select list: n rows of k columns; column j holds arguments j, j+k, ... (an unpivot)
SELECT customer_id, stack(2, 'name', name, 'country', country) AS (attribute, attribute_value) FROM customers
