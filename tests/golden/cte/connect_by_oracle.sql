-- dialect: oracle
-- schema: {"employees": {"employee_id": "int", "manager_id": "int", "name": "varchar", "title": "varchar", "salary": "int"}}
-- description: an Oracle hierarchical query without START WITH (every row a root), NOCYCLE, a child condition in CONNECT BY and a WHERE that filters after the hierarchy: WHERE is control; the child condition is part of the parent-child link (join), with PRIOR
SELECT employee_id, salary
FROM employees
WHERE salary > 1000
CONNECT BY NOCYCLE PRIOR employee_id = manager_id AND LEVEL <= 4 AND title <> 'Contractor';
