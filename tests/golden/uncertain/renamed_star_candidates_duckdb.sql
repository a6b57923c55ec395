-- dialect: duckdb
-- schema: shop.yaml
-- description: (SELECT *, o.amount FROM events, orders o) AS u(x, y): events has no schema, so x and y may each be one of its columns or the amount the star pushes along: conservative, every candidate; amount keeps its name only if events has enough columns
SELECT x, y, amount FROM (SELECT e.*, o.amount FROM events AS e, orders AS o) AS u(x, y)
