-- dialect: tsql
-- schema: shop_writes.yaml
-- description: a T-SQL procedure (AS BEGIN ... END) with a parameter and SET NOCOUNT ON: each write of its body answered, naming the procedure; @since is a variable, not a column
CREATE PROCEDURE dbo.load_daily_sales @since DATE AS
BEGIN
  SET NOCOUNT ON;
  INSERT INTO daily_sales (customer_id, total, dt)
    SELECT customer_id, SUM(amount), CONVERT(VARCHAR(10), ordered_at, 120) FROM orders WHERE ordered_at >= @since
    GROUP BY customer_id, CONVERT(VARCHAR(10), ordered_at, 120);
  UPDATE customers SET segment = 'active' WHERE customer_id IN (SELECT customer_id FROM daily_sales);
END
