-- dialect: postgres
-- schema: shop_writes.yaml
-- description: INSERT INTO t SELECT *, now() FROM s (s without a schema): Postgres may give fewer values than columns (the rest get defaults), so every written column is one of s's unknown columns, the timestamp, or its default: unknown
INSERT INTO customer_totals SELECT *, now() FROM staging_totals
