-- dialect: snowflake
-- schema: shop_upper.yaml
-- description: the name as written (normalised by the dialect) is said; a table nothing resembles gets no guess
SELECT c.name, e.kind FROM customers AS c JOIN events AS e ON e.customer_id = c.customer_id
