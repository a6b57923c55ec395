-- dialect: postgres
-- schema: nested.yaml
-- description: Postgres to_timestamp(text, format) parses text
SELECT to_timestamp(raw, 'YYYY-MM-DD') AS ts FROM events
