-- dialect: bigquery
-- schema: none
-- description: without a schema a name could be a column of the table or the variable: it is read as the variable (never invented as orders.cutoff), and the answer says a column would win
DECLARE cutoff DATE DEFAULT '2024-01-01';
SELECT order_id FROM orders WHERE ordered_at > cutoff;
