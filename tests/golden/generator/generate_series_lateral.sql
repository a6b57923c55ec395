-- dialect: postgres
-- schema: nested.yaml
-- description: generate_series reading a column of the row it is applied to: its values come from that column
SELECT o.order_id, n FROM orders AS o, generate_series(1, o.line_no) AS n
