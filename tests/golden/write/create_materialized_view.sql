-- dialect: postgres
-- schema: shop_writes.yaml
-- description: CREATE MATERIALIZED VIEW with a column list
CREATE MATERIALIZED VIEW country_revenue (country, revenue) AS
SELECT c.country, SUM(o.amount) FROM orders o JOIN customers c USING (customer_id) GROUP BY c.country
