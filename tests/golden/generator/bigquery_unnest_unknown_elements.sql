-- dialect: bigquery
-- schema: none
-- description: UNNEST of an array whose element type is not known: BigQuery lists a struct element's fields as columns, so duration_ms may be a field of the elements or a column of t — both, conservative (it was t.duration_ms, exact); in the correlated subquery likewise
SELECT
  duration_ms,
  (SELECT MAX(total_slot_ms) FROM UNNEST(jobs)) AS max_slot_ms
FROM jobs_by_hour AS t, UNNEST(t.jobs)
