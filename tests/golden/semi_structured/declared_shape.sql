-- dialect: duckdb
-- schema: nested.yaml
-- description: a JSON column whose shape the schema declares: paths in it are exact, a path outside it is conservative
SELECT body -> 'user' ->> 'email' AS email, body -> 'items' -> 0 ->> 'sku' AS sku, body ->> 'other' AS other FROM events
