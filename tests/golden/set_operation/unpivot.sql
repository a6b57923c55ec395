-- dialect: snowflake
-- schema: {"sales": {"region": "varchar", "jan": "int", "feb": "int", "mar": "int"}}
-- description: UNPIVOT: a UNION ALL of one projection per listed column; the month is a constant, the amount comes from each column; rows with a NULL value are dropped (control)
SELECT region, month, amount FROM sales UNPIVOT (amount FOR month IN (jan, feb, mar))
