-- dialect: duckdb
-- schema: shop.yaml
-- description: a function neither sqlglot nor the registry knows is opaque: every argument is assumed to flow in, conservatively
SELECT score_customer(segment, country) AS score FROM customers
