"""A query grammar aimed at the rewrites: derived tables filtered from outside, joins of every
kind with filters on either side, EXISTS / NOT EXISTS / IN / ANY / NOT IN subqueries
(correlated or not, alone or under OR), CTEs read once or twice (one reading another),
constants to fold, and functions that must not move: opaque (``myudf``, ``otherudf``), masking (``sha2``),
non-deterministic (``random``), with control-only arguments (``regexp_extract``), and
columns of schema-less tables (``w``; two of them make candidate columns)."""

from __future__ import annotations

from hypothesis import strategies as st

TABLES = {"t": ("a", "b", "k", "s"), "u": ("k", "x", "y"), "v": ("k", "z")}
OPEN_TABLES = ("w", "w2")  # not in the schema: read schema-less
OPEN_COLUMNS = ("k", "m")


class RewriteQueryWriter:
    def __init__(self, draw):
        self.draw = draw
        self.count = 0
        self.ctes: list[tuple[str, int]] = []  # (name, width) of CTEs defined so far

    def alias(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, n: int) -> bool:
        return self.draw(st.integers(0, n - 1)) == 0

    # --- FROM ---------------------------------------------------------------------------

    def item(self, depth: int) -> tuple[str, list[str], list[str]]:
        """(FROM item, qualified columns, unqualified schema-less column names)."""
        alias = self.alias("r")
        choice = self.draw(st.integers(-1, 5))
        if choice <= 0 and depth > 0:
            inner, width = self.select(depth - 1)
            return f"({inner}) AS {alias}", [f"{alias}.o{i}" for i in range(width)], []
        if choice == 1 and self.ctes:
            name, width = self.pick(self.ctes)
            return f"{name} AS {alias}", [f"{alias}.o{i}" for i in range(width)], []
        if choice == 2:
            table = self.pick(OPEN_TABLES)
            return f"{table} AS {alias}", [f"{alias}.{c}" for c in OPEN_COLUMNS], ["m"]
        table = self.pick(sorted(TABLES))
        return f"{table} AS {alias}", [f"{alias}.{c}" for c in TABLES[table]], []

    def from_clause(self, depth: int) -> tuple[str, list[str], list[str], list[str]]:
        text, refs, loose = self.item(depth)
        where: list[str] = []
        for _ in range(self.draw(st.integers(0, 2))):
            right, right_refs, right_loose = self.item(depth)
            kind = self.pick(("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", ","))
            if kind == ",":
                text += f", {right}"
                if self.chance(2):
                    where.append(f"{self.pick(refs)} = {self.pick(right_refs)}")
            elif kind == "CROSS JOIN":
                text += f" CROSS JOIN {right}"
            else:
                text += f" {kind} {right} ON {self.pick(refs)} = {self.pick(right_refs)}"
            refs, loose = refs + right_refs, loose + right_loose
        return text, refs, loose, where

    # --- expressions -----------------------------------------------------------------------

    def ref(self, refs: list[str], loose: list[str]) -> str:
        if loose and self.chance(4):
            return self.pick(loose)
        return self.pick(refs)

    def value(self, refs: list[str], loose: list[str], depth: int) -> str:
        r = lambda: self.ref(refs, loose)  # noqa: E731
        return self.pick((
            lambda: r(),
            lambda: f"otherudf({r()}, 1)",
            lambda: f"myudf({r()})",
            lambda: f"{r()} + {r()}",
            lambda: f"{r()} * (2 + 3)",
            lambda: "1 + 2",
            lambda: f"sha2({r()})",
            lambda: f"{r()} + random()",
            lambda: f"regexp_extract(CAST({r()} AS VARCHAR), CAST({r()} AS VARCHAR))",
            lambda: f"CASE WHEN {r()} > 0 THEN {r()} ELSE -1 END",
            lambda: f"(SELECT MAX(q.x) FROM u AS q WHERE q.k = {r()})",
            lambda: f"SUM({r()}) OVER (PARTITION BY {r()})",
        ))()

    def reader(self, refs: list[str]) -> str:
        """An expression over a derived table's columns: what merging and pushing must read
        exactly as the authored plan does (opaque calls over opaque calls, control-only
        arguments, masks …)."""
        r = lambda: self.pick(refs)  # noqa: E731
        return self.pick((
            lambda: f"myudf({r()})",
            lambda: f"otherudf({r()}, {r()})",
            lambda: r(),
            lambda: f"{r()} + 1",
            lambda: f"sha2({r()})",
            lambda: f"regexp_extract(CAST({r()} AS VARCHAR), CAST({r()} AS VARCHAR))",
            lambda: f"{r()} * {r()}",
        ))()

    def conjunct(self, refs: list[str], loose: list[str], depth: int) -> str:
        r = lambda: self.ref(refs, loose)  # noqa: E731
        options = [
            lambda: f"{r()} > {self.draw(st.integers(0, 5))}",
            lambda: f"{r()} = {r()}",
            lambda: "1 = 1",
            lambda: f"{r()} > 1 + 1",
            lambda: f"myudf({r()}) > 0",
            lambda: f"otherudf({r()}) > 0",
            lambda: f"sha2({r()}) = 'x'",
            lambda: "random() < 0.5",
            lambda: f"({r()} > 1 OR {r()} < 0)",
        ]
        if depth > 0:
            options += [
                lambda: f"EXISTS (SELECT 1 FROM u AS e WHERE e.k = {r()} AND e.x > 0)",
                lambda: f"NOT EXISTS (SELECT e.y FROM u AS e WHERE e.k = {r()})",
                lambda: "EXISTS (SELECT 1 FROM v AS e WHERE e.z > 2)",
                lambda: f"{r()} IN (SELECT e.x FROM u AS e WHERE e.y > 1)",
                lambda: f"{r()} IN (SELECT e.x + 1 FROM u AS e WHERE e.k = {r()})",
                lambda: f"{r()} IN (SELECT myudf(e.x) FROM u AS e WHERE e.k = {r()})",
                lambda: f"{r()} NOT IN (SELECT e.x FROM u AS e)",
                lambda: f"{r()} > ANY (SELECT e.x FROM u AS e WHERE e.k = {r()})",
                lambda: f"({r()} > 1 OR EXISTS (SELECT 1 FROM u AS e WHERE e.k = {r()}))",
                lambda: f"EXISTS (SELECT 1 FROM u AS e JOIN v AS f ON e.k = f.k WHERE f.z = {r()} AND e.y > 1)",
                lambda: f"{r()} IN ({self.select(depth - 1, width=1)[0]})",
            ]
        return self.pick(options)()

    # --- SELECT -----------------------------------------------------------------------------

    def select(self, depth: int, width: int | None = None) -> tuple[str, int]:
        from_text, refs, loose, where = self.from_clause(depth)
        width = width or self.draw(st.integers(1, 3))
        grouped = self.chance(5)
        if grouped:
            keys = [self.pick(refs)]
            items = [self.pick((keys[0], f"SUM({self.pick(refs)})", "COUNT(*)")) for _ in range(width)]
        else:
            items = [self.value(refs, loose, depth) for _ in range(width)]
        distinct = "DISTINCT " if self.chance(6) else ""
        sql = f"SELECT {distinct}" + ", ".join(f"{item} AS o{i}" for i, item in enumerate(items)) + f" FROM {from_text}"
        where += [self.conjunct(refs, loose, depth) for _ in range(self.draw(st.integers(0, 3)))]
        if where:
            sql += " WHERE " + " AND ".join(where)
        if grouped:
            sql += f" GROUP BY {keys[0]}"
            if self.chance(2):
                sql += f" HAVING SUM({self.pick(refs)}) > 1 + 1"
        elif self.chance(3):
            sql += " ORDER BY 1"
            if self.chance(2):
                sql += " LIMIT 5"
        return sql, width

    def query(self) -> str:
        prefix = ""
        definitions = []
        for _ in range(self.draw(st.integers(0, 2))):
            name = self.alias("c")
            body, width = self.select(1)
            definitions.append(f"{name} AS ({body})")
            self.ctes.append((name, width))
        if definitions:
            prefix = "WITH " + ", ".join(definitions) + " "
        body, width = self.select(2)
        if self.chance(5):
            other, _ = self.select(1, width=width)
            body = f"{body} {self.pick(('UNION', 'UNION ALL', 'EXCEPT'))} {other}"
        for _ in range(self.draw(st.integers(0, 2))):
            body, width = self.wrap(body, width)
        return prefix + body

    def wrap(self, body: str, width: int) -> tuple[str, int]:
        """``SELECT … FROM (body) AS r [WHERE …]``: projections over projections, filters
        over projections."""
        alias = self.alias("p")
        refs = [f"{alias}.o{i}" for i in range(width)]
        new_width = self.draw(st.integers(1, 3))
        items = ", ".join(f"{self.reader(refs)} AS o{i}" for i in range(new_width))
        sql = f"SELECT {items} FROM ({body}) AS {alias}"
        where = [self.conjunct(refs, [], 0) for _ in range(self.draw(st.integers(0, 2)))]
        if where:
            sql += " WHERE " + " AND ".join(where)
        return sql, new_width


@st.composite
def rewrite_queries(draw) -> str:
    return RewriteQueryWriter(draw).query()
