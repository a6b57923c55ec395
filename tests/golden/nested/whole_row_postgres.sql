-- dialect: postgres
-- schema: shop.yaml
-- description: Postgres: row_to_json(c) reads the whole row of c (row_to_json is not in the function registry: every column, conservative)
SELECT row_to_json(c) AS customer_json FROM customers AS c WHERE c.country = 'NL'
