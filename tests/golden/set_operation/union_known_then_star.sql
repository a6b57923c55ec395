-- dialect: postgres
-- schema: shop.yaml
-- description: a declared branch first, a schema-less star second: each column pairs with an unknown column of the star (unknown), and a name or path read below it cannot name one of them
SELECT u.customer_id FROM (SELECT customer_id, amount FROM orders UNION SELECT * FROM archive) AS u
