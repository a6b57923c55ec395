-- dialect: snowflake
-- schema: shop.yaml
-- description: Snowflake's $n is the n-th column of the FROM clause (o.$n of o), in SELECT * order: exact where the columns before it are declared (never a constant, never a column named "1")
SELECT $1 AS id, o.$4 AS amount, c.$2 AS customer_name, $2:tier AS tier FROM orders AS o JOIN customers AS c ON o.$2 = c.$1
