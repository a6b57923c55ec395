-- dialect: snowflake
-- schema: shop.yaml
-- description: WITH customers AS (… FROM customers): the body reads the table, the query reads the CTE
WITH customers AS (SELECT customer_id, country FROM customers WHERE segment = 'b2b') SELECT country FROM customers
