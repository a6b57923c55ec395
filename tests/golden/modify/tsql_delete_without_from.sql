-- dialect: tsql
-- schema: shop_writes.yaml
-- description: DELETE t WHERE … (FROM is optional in T-SQL) targets t
DELETE orders WHERE status = 'void'
