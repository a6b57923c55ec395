-- dialect: bigquery
-- schema: nested.yaml
-- description: BigQuery OFFSET (from 0) and SAFE_ORDINAL (from 1) name the same positions
SELECT items[OFFSET(0)].qty AS q0, items[SAFE_ORDINAL(2)].qty AS q1 FROM orders
