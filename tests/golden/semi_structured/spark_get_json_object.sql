-- dialect: spark
-- schema: nested.yaml
-- description: Spark get_json_object(text, '$.path')
SELECT get_json_object(raw, '$.user.id') AS uid FROM events
