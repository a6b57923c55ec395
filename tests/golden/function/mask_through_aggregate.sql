-- dialect: bigquery
-- schema: shop.yaml
-- description: a mask ranks above aggregate: a counted hash stays visibly masked
SELECT COUNT(DISTINCT FARM_FINGERPRINT(name)) AS people FROM customers
