-- dialect: postgres
-- schema: shop.yaml
-- description: WHERE gives control lineage from every column it reads, to every field
SELECT order_id FROM orders WHERE status = 'paid' AND amount > 100
