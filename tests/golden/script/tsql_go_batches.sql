-- dialect: tsql
-- schema: shop_writes.yaml
-- description: GO lines cut a T-SQL script into batches (sqlcmd/SSMS): the procedure's body ends with its batch, so the statements after GO are the script's own; GO 2 repeats a batch (same lineage); a GO line inside a string or a comment is no separator
CREATE PROCEDURE dbo.refresh_totals AS
BEGIN
  /* rebuilt nightly
  GO
  */
  INSERT INTO customer_totals (customer_id, total, order_count)
    SELECT customer_id, SUM(amount), COUNT(*) FROM orders GROUP BY customer_id;
END
GO
UPDATE customers SET segment = 'vip'
  WHERE customer_id IN (SELECT customer_id FROM customer_totals WHERE total > 1000)
GO 2
SELECT name, 'batch
GO
' AS note FROM customers
go -- end of script
