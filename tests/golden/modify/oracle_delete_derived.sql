-- dialect: oracle
-- schema: shop_writes.yaml
-- description: Oracle DELETE FROM (SELECT … FROM t …): deleting through an inline view removes rows of t
DELETE FROM (SELECT status FROM orders WHERE amount < 0) WHERE status = 'void'
