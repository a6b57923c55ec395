-- dialect: snowflake
-- schema: shop_upper.yaml
-- description: lower-case SQL over an upper-case catalog: names resolve, answers spell them as the catalog
select order_id, amount * 2 as doubled from orders where status = 'paid'
