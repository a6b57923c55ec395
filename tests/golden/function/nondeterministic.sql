-- dialect: postgres
-- schema: shop.yaml
-- description: RANDOM() and NOW() read no column: no sources (the registry records them as nondeterministic)
SELECT random() AS r, now() AS t FROM orders
