-- dialect: postgres
-- schema: shop.yaml
-- description: a LATERAL subquery reads the row it is joined to: its correlation is control lineage of the joined rows
SELECT o.order_id, x.n FROM orders AS o, LATERAL (SELECT COUNT(*) AS n FROM order_items AS i WHERE i.order_id = o.order_id) AS x
