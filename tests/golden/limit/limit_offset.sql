-- dialect: postgres
-- schema: shop.yaml
-- description: LIMIT/OFFSET with literals add nothing; the ORDER BY is sort lineage
SELECT order_id FROM orders ORDER BY amount DESC LIMIT 10 OFFSET 5
