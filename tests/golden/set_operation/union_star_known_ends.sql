-- dialect: bigquery
-- schema: none
-- description: columns before and after a star pair by position (from the start, from the end): exact; a name read through the star pairs unknown
SELECT u.id, u.ts, u.x FROM (SELECT id, *, ts FROM a UNION ALL SELECT id, *, ts FROM b) AS u
