-- dialect: duckdb
-- schema: nested.yaml
-- description: LEFT JOIN UNNEST(...) ON TRUE keeps orders without tags; a constant ON gives no join lineage
SELECT o.order_id, t.tag FROM orders AS o LEFT JOIN UNNEST(o.tags) AS t(tag) ON TRUE
