-- dialect: bigquery
-- schema: nested.yaml
-- description: PARSE_DATE(format, text): the format is a constant that decides how, the text is the value
SELECT PARSE_DATE('%Y%m%d', raw) AS day FROM events
