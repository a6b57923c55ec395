-- dialect: tsql
-- schema: nested.yaml
-- description: T-SQL CROSS APPLY OPENJSON(doc, '$.items') WITH (…): declared columns read from each element
SELECT o.order_id, j.sku FROM orders AS o CROSS APPLY OPENJSON(o.payload, '$.items') WITH (sku NVARCHAR(20) '$.sku') AS j
