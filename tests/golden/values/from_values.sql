-- dialect: postgres
-- schema: none
-- description: a VALUES list in FROM with column aliases: literals, no sources
SELECT v.id, v.label FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, label)
