-- dialect: duckdb
-- schema: hr.yaml
-- description: an unqualified name the subquery's table lacks resolves to the outer query
SELECT d.name FROM departments AS d WHERE budget > (SELECT SUM(salary) FROM employees AS e WHERE e.dept_id = d.dept_id)
