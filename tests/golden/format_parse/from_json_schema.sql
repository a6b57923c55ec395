-- dialect: spark
-- schema: nested.yaml
-- description: FROM_JSON with a schema: the parsed struct's field is a path into the text, exact (the schema is declared in the call)
SELECT from_json(raw, 'id INT, email STRING').email AS email FROM events
