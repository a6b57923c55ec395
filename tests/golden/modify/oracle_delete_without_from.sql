-- dialect: oracle
-- schema: shop_writes.yaml
-- description: Oracle DELETE t WHERE … without FROM
DELETE orders o WHERE o.amount < 0
