-- dialect: snowflake
-- schema: nested.yaml
-- description: PARSE_JSON(text):path: a path into the text, conservative (no declared shape)
SELECT PARSE_JSON(raw):user.id AS uid FROM events
