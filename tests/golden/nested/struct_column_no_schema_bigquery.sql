-- dialect: bigquery
-- schema: none
-- description: BigQuery's billing export read with no schema: project.name and service.description name no table or alias, so project and service are struct columns of the one table (as BigQuery resolves them), their paths unchecked: conservative, with the reason; grouping by the field spelt two ways is one key
SELECT
  project.name AS project,
  billing_export.service.description AS service,
  ROUND(SUM(cost), 2) AS costs
FROM `bqutil.billing.billing_export`
GROUP BY project.name, service.description
