-- dialect: postgres
-- schema: shop.yaml
-- description: Postgres lower-cases unquoted identifiers: ORDERS.Amount is orders.amount, the alias Total is total
SELECT O.Amount AS Total FROM ORDERS AS O
