-- dialect: tsql
-- schema: shop.yaml
-- description: T-SQL DECLARE @x = constant: no source; a column of the query stays a column
DECLARE @status VARCHAR(10) = 'paid';
SELECT order_id, @status AS wanted FROM orders WHERE status = @status;
