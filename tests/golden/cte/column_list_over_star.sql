-- dialect: postgres
-- schema: none
-- description: WITH c(r, m) AS (SELECT * FROM t): the names stand for t's first columns, which nobody declared (unknown) — not refused, and never t.r / t.m
WITH c(r, m) AS (SELECT * FROM t) SELECT r, m FROM c
