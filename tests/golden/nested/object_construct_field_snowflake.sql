-- dialect: snowflake
-- schema: shop.yaml
-- description: a key read out of OBJECT_CONSTRUCT that names it (':' path or ['key']) is that value; Snowflake keys are told apart by case, so ':ID' matches no key and stays conservative with the reason
SELECT
  OBJECT_CONSTRUCT('id', order_id, 'total', amount):id AS id,
  OBJECT_CONSTRUCT('id', order_id, 'total', amount)['total'] AS total,
  OBJECT_CONSTRUCT('id', order_id, 'total', amount):ID AS other_case
FROM orders
