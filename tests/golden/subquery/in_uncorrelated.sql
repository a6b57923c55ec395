-- dialect: postgres
-- schema: shop.yaml
-- description: IN (subquery) reads the needle and the subquery's output; the subquery's WHERE flows in
SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM orders WHERE amount > 100)
