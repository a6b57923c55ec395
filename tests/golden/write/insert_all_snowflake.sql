-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: Snowflake INSERT ALL (unconditional): one answer per INTO, each from the source query
INSERT ALL
  INTO customers_staging (customer_id, name, country, segment, deleted) VALUES (customer_id, name, country, segment, FALSE)
  INTO customer_totals (customer_id, total, order_count) VALUES (customer_id, 0, 0)
SELECT customer_id, name, country, segment FROM customers
