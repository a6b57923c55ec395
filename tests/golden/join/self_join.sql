-- dialect: duckdb
-- schema: hr.yaml
-- description: a self join: two scans of one table, both sides answered as employees
SELECT e.name, m.name AS manager FROM employees AS e LEFT JOIN employees AS m ON e.manager_id = m.id
