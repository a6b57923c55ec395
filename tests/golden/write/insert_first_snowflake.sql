-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: Snowflake INSERT FIRST: each INTO gets the rows its WHEN holds for and no earlier WHEN did (control); ELSE the rows no WHEN held for; two INTOs under one WHEN share it
INSERT FIRST
  WHEN amount > 1000 THEN
    INTO customer_totals (customer_id, total, order_count) VALUES (customer_id, amount, 1)
    INTO daily_sales (customer_id, total, dt) VALUES (customer_id, amount, day)
  WHEN status = 'returned' THEN
    INTO returns (order_id, product_id, reason) VALUES (order_id, NULL, status)
  ELSE
    INTO daily_sales (customer_id, total, dt) VALUES (customer_id, amount, day)
SELECT order_id, customer_id, status, amount, TO_VARCHAR(ordered_at, 'YYYY-MM-DD') AS day FROM orders
