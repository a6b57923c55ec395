-- dialect: spark
-- schema: nested.yaml
-- description: extracting a field of text with a regular expression
SELECT regexp_extract(raw, 'id=([0-9]+)', 1) AS id FROM events
