-- dialect: postgres
-- schema: shop.yaml
-- description: UNION (distinct): each input's WHERE is a control of every output field
SELECT customer_id FROM orders WHERE status = 'paid' UNION SELECT customer_id FROM customers WHERE country = 'NL'
