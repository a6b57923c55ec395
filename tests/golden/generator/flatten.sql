-- dialect: snowflake
-- schema: nested.yaml
-- description: Snowflake LATERAL FLATTEN(input => v:items): VALUE is an element, INDEX the array's shape; paths under a VARIANT are conservative
SELECT e.event_id, f.index, f.value:sku::VARCHAR AS sku FROM events AS e, LATERAL FLATTEN(input => e.v:items) AS f
