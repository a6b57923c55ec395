-- dialect: trino
-- schema: nested.yaml
-- description: Trino json_extract_scalar
SELECT json_extract_scalar(payload, '$.items[1].sku') AS sku FROM orders
