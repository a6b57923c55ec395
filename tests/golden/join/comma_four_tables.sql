-- dialect: postgres
-- schema: shop.yaml
-- description: four comma-joined tables, TPC-H style
SELECT c.name, p.name AS product FROM customers c, orders o, order_items i, products p WHERE c.customer_id = o.customer_id AND o.order_id = i.order_id AND i.product_id = p.product_id AND p.category = 'toys'
