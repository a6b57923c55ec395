-- dialect: snowflake
-- schema: {"employees": {"employee_id": "int", "manager_id": "int", "name": "varchar", "title": "varchar", "salary": "int"}}
-- description: START WITH ... CONNECT BY is read as its recursive-CTE twin: the roots' condition is control and the PRIOR link join lineage of every output; LEVEL has no column source; CONNECT_BY_ROOT is the root's column; SYS_CONNECT_BY_PATH an expression of the column (field trial 22)
SELECT name, LEVEL AS depth, CONNECT_BY_ROOT title AS top_title, SYS_CONNECT_BY_PATH(name, ' > ') AS chain
FROM employees
START WITH title = 'President'
CONNECT BY manager_id = PRIOR employee_id
ORDER BY depth, name;
