-- dialect: snowflake
-- schema: nested.yaml
-- description: Snowflake : paths, GET_PATH and brackets on a VARIANT (the ::VARCHAR cast is an expression over the value read)
SELECT v:user.email::VARCHAR AS email, GET_PATH(v, 'items[0].sku') AS sku, v['user']['id'] AS uid FROM events
