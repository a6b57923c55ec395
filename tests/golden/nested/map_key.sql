-- dialect: spark
-- schema: nested.yaml
-- description: map values by constant key: m['k'] and element_at(m, 'k')
SELECT attrs['color'] AS color, element_at(attrs, 'size') AS size FROM orders
