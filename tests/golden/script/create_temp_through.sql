-- dialect: tsql
-- schema: shop_writes.yaml
-- description: DROP IF EXISTS, then CREATE TABLE #t with a column list declares the temp table for later statements: an INSERT fills it, a read through the script reaches the base columns
-- through-script: yes
DROP TABLE IF EXISTS #recent;
CREATE TABLE #recent (id BIGINT, state VARCHAR(20));
INSERT INTO #recent (id, state) SELECT order_id, status FROM orders WHERE ordered_at > '2024-01-01';
SELECT state, COUNT(*) AS n FROM #recent GROUP BY state;
