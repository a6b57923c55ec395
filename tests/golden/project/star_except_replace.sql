-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery * EXCEPT (…) REPLACE (…)
SELECT * EXCEPT (ordered_at) REPLACE (UPPER(status) AS status) FROM orders
