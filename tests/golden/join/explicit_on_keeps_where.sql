-- dialect: snowflake
-- schema: shop.yaml
-- description: with an explicit JOIN … ON, a WHERE conjunct relating both sides stays a filter
SELECT o.amount FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id WHERE c.country = o.status
