-- dialect: bigquery
-- schema: shop.yaml
-- description: a temp function the script defines is inlined where it is called: its body's subquery reads products, so the call's sources are its arguments and the body's table, exact (field trial 23)
CREATE TEMP FUNCTION discount(pid INT64, paid NUMERIC) AS (
  (SELECT MAX(p.list_price) FROM products AS p WHERE p.product_id = pid) - paid
);
SELECT order_id, discount(product_id, price) AS discount FROM order_items;
