-- dialect: bigquery
-- schema: none
-- description: qualified columns of two schema-less tables are exact
SELECT l.user_id, r.plan FROM logins AS l LEFT JOIN accounts AS r ON r.user_id = l.user_id WHERE r.active
