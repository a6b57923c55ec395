-- dialect: databricks
-- schema: shop.yaml
-- description: Databricks PIVOT with aliased values and an alias list over a table: every output renamed by position
SELECT * FROM orders PIVOT (SUM(amount) FOR status IN ('paid' AS pd, 'open' AS op)) AS p(id, cust, at, paid_total, open_total)
