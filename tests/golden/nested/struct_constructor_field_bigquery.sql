-- dialect: bigquery
-- schema: shop.yaml
-- description: a field read out of a STRUCT constructor that names it is exactly that field's expression (identity for a column, expression for upper(status)); a constructor with an unnamed field is not followed (conservative, with the reason)
SELECT
  STRUCT(order_id AS id, amount AS total).id AS id,
  STRUCT(order_id AS id, UPPER(status) AS status).status AS status,
  STRUCT(customer_id, amount AS total).total AS unnamed_sibling
FROM orders
