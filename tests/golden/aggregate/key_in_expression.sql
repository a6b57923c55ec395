-- dialect: duckdb
-- schema: hr.yaml
-- description: a group key used inside an expression of the select list
SELECT dept_id * 100 AS dept_code, SUM(salary) AS payroll FROM employees GROUP BY dept_id
