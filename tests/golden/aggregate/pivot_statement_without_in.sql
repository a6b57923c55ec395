-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB's PIVOT … ON col USING agg without IN: the columns are the values found at run time, '*' stands for them
PIVOT orders ON status USING SUM(amount) GROUP BY customer_id
