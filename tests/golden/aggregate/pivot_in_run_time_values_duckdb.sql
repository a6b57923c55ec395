-- dialect: duckdb
-- schema: {"monthly_sales": {"empid": "int", "amount": "int", "month": "text"}, "cities": {"country": "text", "name": "text", "year": "int", "population": "int"}}
-- description: PIVOT … IN <enum type> / IN (SELECT …) (DuckDB's pivot_enum.test, pivot_in_subquery.test): the columns are values known at run time — the keys, then '*' (the aggregate, control from the pivot column and the subquery's column; said), never the input's columns as exact identities (field trial 54); SUM(amount + 1) does not make amount a group key (field trial 55)
SELECT * FROM monthly_sales PIVOT (SUM(amount) FOR month IN unique_months) AS p ORDER BY empid;
PIVOT monthly_sales ON month IN unique_months USING SUM(amount) GROUP BY empid;
PIVOT cities ON year IN (SELECT year FROM cities ORDER BY year DESC) USING SUM(population);
SELECT * FROM monthly_sales PIVOT (SUM(amount + 1) FOR month IN ('JAN', 'FEB')) AS p
