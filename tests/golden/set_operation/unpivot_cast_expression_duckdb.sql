-- dialect: duckdb
-- schema: {"monthly_sales": {"empid": "int", "amount": "int", "month": "text"}}
-- description: UNPIVOT of an expression over one column (DuckDB's unpivot_expression.test): amount::VARCHAR unpivots amount — not kept, labelled amount, its value the cast (field trial 56)
SELECT * FROM monthly_sales UNPIVOT (value FOR name IN (amount::VARCHAR, month))
