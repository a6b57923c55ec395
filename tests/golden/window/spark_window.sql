-- dialect: spark
-- schema: hr.yaml
-- description: Spark: DENSE_RANK over a department, next to a plain column
SELECT name, DENSE_RANK() OVER (PARTITION BY dept_id ORDER BY salary DESC, hired_at) AS pay_rank FROM employees
