-- dialect: tsql
-- schema: shop_writes.yaml
-- description: T-SQL renames with EXEC sp_rename (a table, then a column with 'COLUMN'): through the script the new names reach the base columns
-- through-script: yes
EXEC sp_rename 'customers', 'customers_old';
EXEC sp_rename 'customers_old.segment', 'tier', 'COLUMN';
SELECT customer_id, tier FROM customers_old WHERE country = 'NL';
