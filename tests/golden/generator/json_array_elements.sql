-- dialect: postgres
-- schema: nested.yaml
-- description: Postgres json_array_elements over a JSON path: elements of semi-structured data (conservative: no declared shape)
SELECT o.order_id, e.value ->> 'sku' AS sku FROM orders AS o, json_array_elements(o.payload -> 'items') AS e
