-- dialect: postgres
-- schema: hr.yaml
-- description: a recursive CTE: anchor and recursive term merge by position; the cycle resolves to a fixed point
WITH RECURSIVE chain AS (SELECT id, manager_id, name FROM employees WHERE manager_id IS NULL UNION ALL SELECT e.id, e.manager_id, e.name FROM employees AS e JOIN chain AS c ON e.manager_id = c.id) SELECT id, name FROM chain
