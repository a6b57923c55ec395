-- dialect: trino
-- schema: shop.yaml
-- description: a field of a computed value whose fields are not named by the constructor (a ROW cast to a named row type): every input is listed, conservative, with the reason, as when the value is computed in a derived table (never exact)
SELECT CAST(ROW(order_id, amount) AS ROW(id BIGINT, total DECIMAL(12, 2))).id AS id FROM orders
