-- dialect: duckdb
-- schema: nested.yaml
-- description: LEFT JOIN UNNEST(...) ON TRUE keeps orders without tags; a constant ON adds no join key, but the tags decide how many rows each order gets: join lineage from o.tags on every field (trial 69)
SELECT o.order_id, t.tag FROM orders AS o LEFT JOIN UNNEST(o.tags) AS t(tag) ON TRUE
