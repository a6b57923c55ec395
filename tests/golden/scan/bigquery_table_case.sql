-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery table names are case-sensitive (kept as written when not declared); column names are not
SELECT Id FROM invent_dw.UserDetail
