-- dialect: snowflake
-- schema: shop.yaml
-- description: a Snowflake SQL table function read as TABLE(f(...)): its query as a derived table, columns named by RETURNS TABLE
CREATE FUNCTION returned_products(why VARCHAR) RETURNS TABLE(product NUMBER, order_ref NUMBER) AS
  'SELECT product_id, order_id FROM returns WHERE reason = why';
SELECT r.product, p.name FROM TABLE(returned_products('damaged')) AS r JOIN products AS p ON p.product_id = r.product;
