-- dialect: snowflake
-- schema: nested.yaml
-- description: TRY_PARSE_JSON: format parsing of the whole text
SELECT TRY_PARSE_JSON(raw) AS doc FROM events
