"""Parsing SQL text with sqlglot: the one entry point every reader of SQL goes through.

* The text is tokenized first.  Text that cannot be tokenized (an unterminated string, quoted
  identifier or comment) is a ``ParseError`` naming what is not closed, with the line and
  column where it opens.
* Nesting is bounded **on the token stream**, before the parser recurses
  (``MAX_NESTING``): sqlglot's compiled parser recurses once or more per level of
  parentheses, brackets, ``CASE`` and prefix operators (``NOT NOT …``, ``- - …``), on the C
  stack; thousands of levels would exhaust it and kill the process.  A statement nested
  deeper is a ``NestingTooDeepError`` naming the statement, the line and the column.  Long
  *flat* chains (``a OR b OR …`` with 50,000 terms, huge ``IN`` lists, ``c0 + c1 + …``) do
  not nest in the token stream and are parsed (sqlglot builds them iteratively).
* Every exception sqlglot raises while reading the text — its ``ParseError``, and the
  ``ValueError``/``TypeError``/``IndexError``… its parser lets through on some malformed
  inputs — is a ``ParseError`` (exit 4), with the line and column of the token the parser
  was at where that is known.  Never an internal error.

The callers run this on the deep-stack worker (``prism_lineage.guarded``), which is the
backstop should anything else recurse too deeply.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass
from operator import attrgetter

import sqlglot.errors as sqlglot_errors
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.tsql import TSQL
from sqlglot.tokens import Token, TokenType

from ...errors import NestingTooDeepError, ParseError
from ...ir import Origin, SourceText
from ...terminal import printable

# Levels of nesting a statement may have (parentheses, brackets, braces, CASE … END and runs of
# prefix operators, counted together).  Hand-written SQL stays under a few dozen; generated
# SQL reaches a few hundred.  sqlglot's parser needs about two recursion levels per level, and
# lowering a few more: 1,000 keeps all of it far inside the worker's limit.
MAX_NESTING = 1_000

# Constructors sqlglot's parser first tries to read as a type (``ARRAY[…]``, ``STRUCT(…)``):
# it reads each level twice when it is not one, so the time doubles per level (measured: 16
# nested ``ARRAY[`` take 1 s in DuckDB, 7 s in Spark; 25 would take hours).  They may nest
# ``MAX_CONSTRUCTOR_NESTING`` deep (at most 256 times the work of the innermost part).
MAX_CONSTRUCTOR_NESTING = 8
_CONSTRUCTOR_NAMES = ("ARRAY", "LIST", "MAP", "NESTED", "OBJECT", "STRUCT", "NULLABLE", "LOWCARDINALITY")

_BYTE_ORDER_MARK = "\ufeff"


def without_byte_order_mark(text: str) -> str:
    """``text`` without a leading UTF-8 byte-order mark (editors on Windows write one)."""
    return text[1:] if text.startswith(_BYTE_ORDER_MARK) else text


def parse_statements(text: str, dialect: Dialect, source: SourceText) -> list[exp.Expression]:
    """Every statement of ``text`` (empty statements between semicolons are dropped); a T-SQL
    script's batches (``GO`` lines) are parsed one after the other."""
    batches = batch_tokens(text, dialect, source)
    # One batch (every text but a T-SQL script with GO lines): its list as it is, not a copy
    # (the copy was ~0.8% of explaining TPC-DS; the check only reads it).
    tokens = batches[0] if len(batches) == 1 else [t for batch in batches for t in batch]
    types = list(map(_TOKEN_TYPE, tokens))
    check_nesting(tokens, source, constructors=_constructors(dialect), types=types)
    parsed = []
    for batch in batches:
        parsed += _parse(batch, text, dialect, source)
    # ``;;`` and a ``;`` after nothing but comments parse as a Semicolon: no statement.
    statements = [statement for statement in parsed
                  if statement is not None and not isinstance(statement, exp.Semicolon)]
    place_empty_select_lists(tokens, statements, types)
    if TokenType.HASH in types:  # (a C-speed test: DuckDB's ``#n`` is rare)
        place_positional_columns(tokens, statements, types)
    if "[" in text and type(dialect).__name__ == "DuckDB" and (sliced := set(_OMITTED_START.findall(text))):
        for statement in statements:
            read_omitted_slice_starts(statement, sliced)
    upper = text.upper()
    if "IDENTIFIER" in upper:  # Snowflake's IDENTIFIER('t'): the name it holds (identifiers.py)
        from .identifiers import read_literal_identifiers

        for statement in statements:
            read_literal_identifiers(statement, dialect, source)
    if "COLUMNS" not in upper:
        # The parser makes DuckDB's/ClickHouse's COLUMNS(...) only from a name spelt so (any
        # case): without one in the text, no statement holds it, and the lowering need not
        # look for it in every select item (stars.select_items; ~1% of explaining TPC-DS).
        for statement in statements:
            statement.meta[WITHOUT_COLUMNS] = True
    return statements


# DuckDB's list slice with no start, ``l[:stop]`` / ``l[:stop:step]`` over a column ``stop``.
_OMITTED_START = re.compile(r"\[\s*:\s*([A-Za-z_][A-Za-z_0-9]*)")


def read_omitted_slice_starts(statement: exp.Expression, names: set[str]) -> None:
    """``l[:stop]`` is a slice of ``l`` up to the column ``stop`` (DuckDB); sqlglot reads
    ``:stop`` as a named parameter, so ``l[:stop]`` was the element of ``l`` at a parameter and
    the column was lost (``l[:stop:step]`` a slice from the parameter to ``step``).  DuckDB
    names no parameter ``:name`` (its are ``?``, ``$1``, ``$name``): such a placeholder, first
    in brackets, where the text spells ``[:name``, is the slice's end."""
    for placeholder in list(statement.find_all(exp.Placeholder)):
        name = placeholder.this
        if not isinstance(name, str) or name not in names:
            continue
        parent = placeholder.parent
        column = exp.column(name)
        if isinstance(parent, exp.Bracket) and placeholder.arg_key == "expressions":
            placeholder.replace(exp.Slice(expression=column))
        elif isinstance(parent, exp.Slice) and placeholder.arg_key == "this" and isinstance(parent.parent, exp.Bracket) \
                and parent.args.get("step") is None:
            parent.replace(exp.Slice(expression=column, step=parent.args.get("expression")))


# Meta key of a parsed statement whose text names no ``COLUMNS``: it holds no ``exp.Columns``.
WITHOUT_COLUMNS = "prism_without_columns"


# T-SQL's batch separator: ``GO`` alone on its line, with an optional count and ``--`` comment.
_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*(?:--[^\n]*)?\r?$", re.I | re.M)


def batch_tokens(text: str, dialect: Dialect, source: SourceText | None = None) -> list[list[Token]]:
    """The tokens of ``text``, one list per batch.  T-SQL (SQL Server, Fabric) scripts are cut
    into batches by ``GO`` lines — the separator sqlcmd and SSMS read and never send to the
    server: ``GO`` alone on its line, with an optional count (``GO 5`` runs the batch five
    times: the same lineage) and ``--`` comment.  A batch ends every statement in it (a
    procedure's body ends with its batch).  sqlglot does not read ``GO`` (its tokenizer takes
    what follows a command token up to the next ``;`` as one string), so each batch is
    tokenized on its own and its tokens moved to where the batch stands in ``text``.  A ``GO``
    line inside a string or a comment is none: the text before it does not tokenize.  Other
    dialects: one list.  Text that cannot be tokenized is a ``ParseError`` (with ``source``)."""
    lines = list(_GO_LINE.finditer(text)) if isinstance(dialect, TSQL) else []
    if not lines:
        return [_whole(text, dialect, source)]
    batches: list[list[Token]] = []
    begin = 0
    for line in lines:
        try:
            tokens = dialect.tokenizer().tokenize(text[begin:line.start()])
        except (sqlglot_errors.TokenError, ValueError, TypeError, IndexError, KeyError, AttributeError,
                AssertionError, UnicodeError):
            continue  # the GO line is inside a string or a comment
        batches.append(_moved(tokens, text, begin))
        begin = line.end()
    if begin and text[begin:].strip():
        try:
            tokens = dialect.tokenizer().tokenize(text[begin:])
        except (sqlglot_errors.TokenError, ValueError, TypeError, IndexError, KeyError, AttributeError,
                AssertionError, UnicodeError):
            # Said where it stands in the whole text (the batch padded to its place).
            _whole(re.sub(r"[^\n]", " ", text[:begin]) + text[begin:], dialect, source)
            raise
        batches.append(_moved(tokens, text, begin))
    elif not begin:
        return [_whole(text, dialect, source)]
    return [batch for batch in batches if batch]


def _whole(text: str, dialect: Dialect, source: SourceText | None) -> list[Token]:
    """The tokens of ``text``: an error is a ``ParseError`` naming where (sqlglot's
    ``TokenError`` without ``source``: cli/batch.py retries with more text)."""
    return tokenize(text, dialect, source) if source is not None else dialect.tokenizer().tokenize(text)


def _moved(tokens: list[Token], text: str, offset: int) -> list[Token]:
    """Tokens of ``text[offset:]`` placed where they stand in ``text`` (a batch starts at the
    end of a GO line, so the columns of its tokens are already right)."""
    if offset:
        lines = text.count("\n", 0, offset)
        for token in tokens:
            token.start += offset
            token.end += offset
            token.line += lines
    return tokens


def _parse(tokens: list[Token], text: str, dialect: Dialect, source: SourceText) -> list[exp.Expression | None]:
    if not tokens:
        return []
    parser = _reused(dialect)[1]
    try:
        return parser.parse(tokens, text)
    except sqlglot_errors.ParseError as error:
        parsed = _as_column_names(error, parser, tokens, text)
        if parsed is None:
            parsed = _empty_groupings(error, parser, tokens, text)
        if parsed is None:
            raise _parse_error(error, source) from None
        return parsed
    except RecursionError:
        raise  # the worker turns it into NestingTooDeepError
    except (sqlglot_errors.SqlglotError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            AssertionError, LookupError, ArithmeticError, UnicodeError) as error:
        raise _unexpected(error, parser, source) from None


def _empty_groupings(error: sqlglot_errors.ParseError, parser, tokens: list[Token],
                     text: str) -> list[exp.Expression | None] | None:
    """The statements again, with DuckDB's ``GROUPING()`` — no arguments: every grouping
    column (DuckDB's test/sql/aggregate/grouping_sets/grouping.test) — which sqlglot refuses
    ("Required keyword: 'expressions' missing").  Only after that failure, and only when the
    text holds no ``GROUPING(*)`` of its own: each ``GROUPING()`` is parsed as ``GROUPING(*)``
    and given its empty argument list back.  None when that does not parse."""
    details = error.errors[0] if error.errors else {}
    if "Grouping" not in str(details.get("description") or ""):
        return None
    spelled = [(at, token) for at, token in enumerate(tokens[:-2])
               if token.text.upper() == "GROUPING" and tokens[at + 1].token_type is TokenType.L_PAREN]
    if not spelled or any(tokens[at + 2].token_type is TokenType.STAR for at, _ in spelled):
        return None
    again = list(tokens)
    for at, _ in reversed(spelled):
        closing = tokens[at + 2]
        if closing.token_type is TokenType.R_PAREN:
            again.insert(at + 2, Token(TokenType.STAR, "*", closing.line, closing.col, closing.start, closing.start))
    try:
        parsed = parser.parse(again, text)
    except (sqlglot_errors.SqlglotError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            AssertionError, LookupError, ArithmeticError, UnicodeError):
        return None
    for statement in parsed:
        for grouping in statement.find_all(exp.Grouping) if statement is not None else ():
            if len(grouping.expressions) == 1 and type(grouping.expressions[0]) is exp.Star:
                grouping.set("expressions", [])
    return parsed


def _as_column_names(error: sqlglot_errors.ParseError, parser, tokens: list[Token],
                     text: str) -> list[exp.Expression | None] | None:
    """The statements again, reading a nested type's name before ``<`` as a column name
    (field trial 66): sqlglot takes ``range < 5`` (also ``map``, ``list``, ``array``,
    ``struct``, ``object``, ``nullable`` …) for the start of a parameterized type
    ``RANGE<…>`` and fails with "Expecting >" where the type's parameters should stand.  A
    column of that name is common (DuckDB's ``range()`` yields one).  Only after that
    failure, the nearest such name before the failure is made an identifier and the text
    parsed again (once per such name at most).  None when that does not parse: the caller
    reports the first error (a genuine type with a missing ``>`` stays one)."""
    candidates = _type_names_before_less_than(parser, tokens)
    if not candidates:
        return None
    retyped: list[tuple[Token, TokenType]] = []
    failure = error
    while candidates:
        details = failure.errors[0] if failure.errors else {}
        if not str(details.get("description") or "").startswith("Expecting >"):
            break
        line, column = details.get("line"), details.get("col")
        if line is None or column is None:
            break
        before = [token for token in candidates if (token.line, token.col) < (int(line), int(column))]
        if not before:
            break
        token = before[-1]
        candidates.remove(token)
        retyped.append((token, token.token_type))
        # A quoted identifier's token: a plain name would still be read as the function of
        # that name (``MAP(…)``); the identifier is unquoted again below, so that it folds
        # case as the dialect folds an unquoted name.
        token.token_type = TokenType.IDENTIFIER
        try:
            parsed = parser.parse(tokens, text)
        except sqlglot_errors.ParseError as again:
            failure = again
            continue
        except (sqlglot_errors.SqlglotError, ValueError, TypeError, IndexError, KeyError, AttributeError,
                AssertionError, LookupError, ArithmeticError, UnicodeError):
            break
        starts = {token.start for token, _ in retyped}
        for statement in parsed:
            for identifier in statement.find_all(exp.Identifier) if statement is not None else ():
                if identifier.quoted and identifier.meta.get("start") in starts:
                    identifier.set("quoted", False)
        for token, token_type in retyped:  # the tokens as the text spells them
            token.token_type = token_type
        return parsed
    for token, token_type in retyped:  # the tokens as they were (callers may read them again)
        token.token_type = token_type
    return None


def _type_names_before_less_than(parser, tokens: list[Token]) -> list[Token]:
    """Tokens of a nested type's name (not ``UNION``/``TABLE``: keywords, never columns)
    followed by ``<``, or by a parenthesized list and then ``<`` (a call: ``ROW(0, 0) < ANY
    (…)``, DuckDB's and Postgres' row constructor, which sqlglot also reads as the start of a
    parameterized type).  What follows ``<`` may be a type's name too (``map < list``, two
    columns, is valid DuckDB): which reading holds is left to the parser."""
    nested = parser.NESTED_TYPE_TOKENS
    found = []
    for at in range(len(tokens) - 2):
        token_type = tokens[at].token_type
        if token_type not in nested or token_type in _NEVER_COLUMNS:
            continue
        following = tokens[at + 1].token_type
        if following is TokenType.L_PAREN:
            after = _after_parentheses(tokens, at + 1)
            if after is not None and after < len(tokens) and tokens[after].token_type is TokenType.LT:
                found.append(tokens[at])
        elif following is TokenType.LT:
            found.append(tokens[at])
    return found


def _after_parentheses(tokens: list[Token], start: int) -> int | None:
    """The position after the parenthesis that closes the one at ``start``."""
    depth = 0
    for at in range(start, len(tokens)):
        token_type = tokens[at].token_type
        if token_type is TokenType.L_PAREN:
            depth += 1
        elif token_type is TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return at + 1
    return None


_NEVER_COLUMNS = frozenset((TokenType.UNION, TokenType.TABLE))


# What may stand between SELECT and its list, and what ends a select list.
_LIST_PREFIX = frozenset((TokenType.DISTINCT, TokenType.ALL))
_LIST_ENDS = frozenset((
    TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT,
    TokenType.SEMICOLON, TokenType.R_PAREN, TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT,
    TokenType.WINDOW, TokenType.QUALIFY, TokenType.INTO,
))


def place_empty_select_lists(tokens: list[Token], statements: list[exp.Expression],
                             types: list[TokenType] | None = None) -> None:
    """Give a SELECT whose list is empty (``SELECT``, ``SELECT FROM t``) the position of its
    keyword: sqlglot keeps none for keywords, and the lowering refuses such a SELECT with an
    error that must say where, like every other.  The SELECT tokens with nothing before the end
    of their list are paired with the parsed SELECTs that have no list, in order — only when
    there are as many of each (otherwise the error names the statement alone)."""
    empty: list[Token] = []
    if types is None:
        types = list(map(_TOKEN_TYPE, tokens))
    count, at = len(types), -1
    # Every SELECT, found at C speed (this runs on every parse).  As many ``index`` calls as
    # there are SELECTs: the one past the last would raise, and its message holds the token
    # type's Python-level ``repr`` (a third of this function's time).
    for _ in range(types.count(TokenType.SELECT)):
        at = types.index(TokenType.SELECT, at + 1)
        after = at + 1
        while after < count and types[after] in _LIST_PREFIX:
            after += 1
        if after == count or types[after] in _LIST_ENDS:
            empty.append(tokens[at])
    if not empty:
        return
    nodes = [node for statement in statements for node in statement.walk(bfs=False)
             if isinstance(node, exp.Select) and not node.expressions]
    if len(nodes) != len(empty):
        return
    for node, token in zip(nodes, empty):
        node.meta.update(line=token.line, col=token.col, start=token.start, end=token.end)




def place_positional_columns(tokens: list[Token], statements: list[exp.Expression],
                             types: list[TokenType]) -> None:
    """Give DuckDB's positional columns (``#2``: ``PositionalColumn``) the position of their
    ``#`` and number: sqlglot keeps none, and a relation or error must say where it is.  The
    ``#`` NUMBER token pairs and the parsed nodes are paired in order — only when there are as
    many of each."""
    marks = [(tokens[i], tokens[i + 1]) for i, kind in enumerate(types[:-1])
             if kind is TokenType.HASH and types[i + 1] is TokenType.NUMBER]
    nodes = [node for statement in statements for node in statement.walk(bfs=False)
             if isinstance(node, exp.PositionalColumn)]
    if not nodes or len(nodes) != len(marks):
        return
    nodes.sort(key=lambda n: _source_order(n))
    for node, (hash_, number) in zip(nodes, marks):
        span = dict(line=number.line, col=number.col, start=hash_.start, end=number.end)
        node.meta.update(span)
        node.this.meta.update(span)


def _source_order(node: exp.Expression) -> tuple:
    """A node's place in a DFS of its tree (pre-order: the order the text reads it)."""
    path = []
    while node.parent is not None:
        parent = node.parent
        path.append(_child_index(parent, node))
        node = parent
    return tuple(reversed(path))


def _child_index(parent: exp.Expression, child: exp.Expression) -> int:
    for i, node in enumerate(parent.iter_expressions()):
        if node is child:
            return i
    return 0


def keyword_before(text: str, offset: int, dialect: Dialect, keyword: TokenType) -> tuple[int, int] | None:
    """Where the last ``keyword`` token before ``offset`` (the start of a token) of ``text`` is,
    as (start, end) offsets; ``None`` if there is none.  For errors only: it tokenizes the text
    before ``offset`` again."""
    try:
        tokens = dialect.tokenize(text[:offset])
    except (sqlglot_errors.TokenError, ValueError, TypeError, IndexError, KeyError, AttributeError):
        return None
    for token in reversed(tokens):
        if token.token_type is keyword:
            return token.start, token.end
    return None


# --- tokens ------------------------------------------------------------------------------------

# One tokenizer and one parser per dialect and thread, made on first use: sqlglot makes a new
# one for every ``dialect.tokenizer()``/``dialect.parser()`` (the tokenizer copies some thirty
# settings into its core each time: ~2% of reading a short statement), and both start afresh
# on every call (``reset()`` first: new lists for tokens, errors and chunks, so what an earlier
# call returned is never touched).  Neither calls back into this package while it works, so a
# thread never uses one while it is already in use; threads do not share them.
_PER_THREAD = threading.local()


def _reused(dialect: Dialect) -> tuple:
    found = getattr(_PER_THREAD, "tools", None)
    if found is None:
        found = _PER_THREAD.tools = {}
    tools = found.get(id(dialect))
    if tools is None or tools[2] is not dialect:  # (an id is reused only once its dialect is gone)
        if len(found) >= 32:  # dialects made per call (settings in the name) are not kept
            found.clear()
        tools = found[id(dialect)] = (dialect.tokenizer(), dialect.parser(), dialect)
    return tools


# What an unterminated token is, by how it starts, and what is not closed.
_OPENING = (
    ("/*", "comment", "the /* that opens it has no */"),
    ("$", "dollar-quoted string", "the $…$ tag that opens it is never repeated"),
    ("'", "string", "the quote that opens it is never closed"),
    ('"', "quoted identifier", "the quote that opens it is never closed"),
    ("`", "quoted identifier", "the backtick that opens it is never closed"),
    ("[", "quoted identifier", "the [ that opens it has no ]"),
)


def tokenize(text: str, dialect: Dialect, source: SourceText) -> list[Token]:
    tokenizer = _reused(dialect)[0]
    try:
        return tokenizer.tokenize(text)
    except sqlglot_errors.TokenError:
        raise _token_error(tokenizer, text, source) from None
    except (ValueError, TypeError, IndexError, KeyError, AttributeError, AssertionError, UnicodeError) as error:
        raise ParseError(f"cannot read the SQL text: {type(error).__name__}: {error}") from None


def _token_error(tokenizer, text: str, source: SourceText) -> ParseError:
    """Where the token that could not be read starts, and what it is (sqlglot's message
    shows only the text around it)."""
    start = getattr(getattr(tokenizer, "_core", tokenizer), "_start", None)
    if not isinstance(start, int) or not 0 <= start < len(text):
        return ParseError("cannot read the SQL text: a string, quoted identifier or comment is not closed")
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    opening = text[start:start + 3]
    if opening[:1].isalpha() and "'" in opening[1:]:
        opening = "'"  # a prefixed string: E'…', X'…', N'…', r'…'
    found = next(((name, why) for prefix, name, why in _OPENING if opening.startswith(prefix)), None)
    origin = Origin(line, column, line, column, None, source.file)
    if found is None:
        return ParseError(f"cannot read the SQL text at {printable(text[start:start + 20])!r}", origin=origin)
    return ParseError(f"unterminated {found[0]}: {found[1]}", origin=origin)


_CLOSERS = {
    TokenType.L_PAREN: TokenType.R_PAREN, TokenType.L_BRACKET: TokenType.R_BRACKET,
    TokenType.L_BRACE: TokenType.R_BRACE, TokenType.CASE: TokenType.END,
}
_CLOSING = frozenset((TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE))
# Prefix operators: a run of them nests one level each (``NOT NOT NOT a``).
_PREFIX = frozenset((TokenType.NOT, TokenType.DASH, TokenType.PLUS, TokenType.TILDE, TokenType.EXCLAMATION))


def _constructors(dialect: Dialect) -> frozenset[TokenType]:
    parser = dialect.parser_class
    found = _CONSTRUCTORS.get(parser)
    if found is None:  # once per parser class: the sets are large and every parse asks
        nested = parser.NESTED_TYPE_TOKENS | parser.STRUCT_TYPE_TOKENS
        found = _CONSTRUCTORS[parser] = frozenset(t for t in nested if t.name in _CONSTRUCTOR_NAMES)
    return found


_CONSTRUCTORS: dict[type, frozenset[TokenType]] = {}


_OPENERS = frozenset((TokenType.L_PAREN, TokenType.L_BRACKET))
_TOKEN_TYPE = attrgetter("token_type")
_COUNTED = tuple(_CLOSERS) + tuple(_PREFIX)  # what may add a level


def too_deep(tokens: list[Token], limit: int, constructors: frozenset[TokenType] = frozenset(),
             constructor_limit: int = MAX_CONSTRUCTOR_NESTING,
             types: list[TokenType] | None = None) -> tuple[Token, int, bool] | None:
    """The first token where the nesting passes ``limit`` (or the nesting of type-like
    constructors passes ``constructor_limit``), the index of its statement (counting
    non-empty statements, as the parser does) and whether it was a constructor; ``None`` if
    the nesting stays within both."""
    # Fast path (almost every statement): with no more openers in the whole text than the
    # limit allows, nothing can nest deeper than it — surely so with no more tokens than that
    # and no constructor (two C-speed tests instead of counting every token's type).
    if types is None:
        types = list(map(_TOKEN_TYPE, tokens))
    if len(types) <= limit and constructors.isdisjoint(types):
        return None
    counts = Counter(types)
    if (sum(counts[kind] for kind in _COUNTED) <= limit
            and sum(counts[kind] for kind in constructors) <= constructor_limit):
        return None
    stack: list[TokenType] = []
    built: list[int] = []  # the stack depths at which a constructor opened
    run = statement = 0
    in_statement = False
    previous: TokenType | None = None
    for token in tokens:
        kind = token.token_type
        if kind is TokenType.SEMICOLON and not stack:
            statement += in_statement
            in_statement, run, previous = False, 0, None
            continue
        in_statement = True
        closer = _CLOSERS.get(kind)
        if closer is not None:
            stack.append(closer)
            run = 0
            if previous in constructors and kind in _OPENERS:
                built.append(len(stack))
                if len(built) > constructor_limit:
                    return token, statement, True
        elif stack and kind is stack[-1]:
            stack.pop()
            run = 0
        elif kind in _CLOSING:
            if kind in stack:  # an unclosed CASE inside: close up to the matching opener
                while stack.pop() is not kind:
                    pass
            run = 0
        elif kind in _PREFIX:
            run += 1
        else:
            run = 0
        while built and built[-1] > len(stack):
            built.pop()
        if len(stack) + run > limit:
            return token, statement, False
        previous = kind
    return None


def check_nesting(tokens: list[Token], source: SourceText, limit: int | None = None,
                  constructors: frozenset[TokenType] = frozenset(), types: list[TokenType] | None = None) -> None:
    limit = MAX_NESTING if limit is None else limit
    found = too_deep(tokens, limit, constructors, types=types)
    if found is None:
        return
    token, statement, constructor = found
    origin = Origin(token.line, token.col, token.line, token.col, statement, source.file)
    if constructor:
        raise NestingTooDeepError(
            f"statement {statement + 1} nests ARRAY/STRUCT/MAP constructors more than {MAX_CONSTRUCTOR_NESTING} "
            "deep; prism_lineage reads at most that many (sqlglot's parser takes twice as long for each "
            "further level): build the innermost values in a CTE", origin=origin)
    raise NestingTooDeepError(
        f"statement {statement + 1} nests more than {limit:,} levels deep (parentheses, function calls, "
        f"CASE, brackets or prefix operators inside each other); prism_lineage reads at most {limit:,} "
        "levels: rewrite the innermost part as a CTE or split the statement", origin=origin)


# --- parser errors -----------------------------------------------------------------------------

_TOKEN = re.compile(r"<Token token_type: [^,]*, text: (.*?), line: \d+.*?>")


# sqlglot's "Required keyword: 'expression' missing for <class 'sqlglot…GT'>".
_MISSING = re.compile(r"Required keyword: '(\w+)' missing for <class '[\w.]*?(\w+)'>")
_PARTS = {"this": "operand", "expression": "right-hand side"}


def _missing_part(match: re.Match) -> str:
    part = _PARTS.get(match.group(1), f"'{match.group(1)}'")
    return f"incomplete {match.group(2).upper()} expression: its {part} is missing"


def _parse_error(error: sqlglot_errors.ParseError, source: SourceText) -> ParseError:
    details = error.errors[0] if error.errors else {}
    description = str(details.get("description") or error).split("\n")[0]
    # sqlglot prints tokens as ``<Token token_type: …, text: WHERE, …>``: keep the text.
    description = _TOKEN.sub(lambda m: f"'{m.group(1)}'", description)
    description = _MISSING.sub(_missing_part, description)
    line, column = details.get("line"), details.get("col")
    near = (details.get("highlight") or "").strip()
    message = f"cannot parse the SQL: {description}"
    if near:
        message += f" near '{near}'"
    origin = None
    if line is not None and column is not None:
        origin = Origin(int(line), int(column), int(line), int(column), None, source.file)
    return ParseError(message, origin=origin)


# sqlglot's own wording for an operand its parser did not find ("sqlglot.expressions.core.Expr
# object expected; got None"): say it in the user's terms.
_EXPECTED = re.compile(r"^[\w.]*?(\w+) object expected; got (\w[\w.]*)$")


def _readable(detail: str) -> str:
    match = _EXPECTED.match(detail)
    if match is None:
        return detail
    wanted = "an expression" if match.group(1) in ("Expr", "Expression") else f"a {match.group(1)}"
    if match.group(2) == "None":
        return f"{wanted} is missing"
    return f"{wanted} was expected, not a {match.group(2).rsplit('.', 1)[-1]}"


def _unexpected(error: Exception, parser, source: SourceText) -> ParseError:
    """An exception sqlglot's parser let through on malformed input: a parse error at the
    token the parser was reading."""
    token = getattr(parser, "_curr", None)
    if token is None or token.token_type is TokenType.SENTINEL:  # past the end: the last token read
        token = getattr(parser, "_prev", None)
    detail = _readable(str(error).split("\n")[0][:200])
    message = f"cannot parse the SQL: {detail or type(error).__name__}"
    if token is not None and getattr(token, "line", None):
        near = str(token.text)[:40]
        origin = Origin(token.line, token.col, token.line, token.col, None, source.file)
        return ParseError(f"{message} near '{near}'", origin=origin)
    return ParseError(message)


def raised_by_sqlglot(error: BaseException) -> bool:
    """Whether the innermost frame of ``error``'s traceback is sqlglot's code."""
    traceback = error.__traceback__
    if traceback is None:
        return False
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    return "sqlglot" in traceback.tb_frame.f_code.co_filename.replace("\\", "/").split("/")


def statement_parse_error(error: Exception, node: exp.Expression, ctx) -> ParseError:
    """sqlglot failed on a part of statement ``node`` while it was being lowered."""
    detail = _readable(str(error).split("\n")[0][:200])
    if not isinstance(error, sqlglot_errors.SqlglotError):
        detail = f"sqlglot cannot handle this statement ({type(error).__name__}: {detail})"
    origin = ctx.origin(node)
    if origin is None:
        origin = next((ctx.origin(n) for n in node.walk() if n._meta and "start" in n._meta), None)
    return ParseError(f"cannot parse the SQL: {detail}", origin=origin)


# --- where statements end (for cutting a query log, cli/batch.py) ----------------------------


@dataclass(frozen=True, slots=True)
class Extent:
    """A statement as sqlglot's parser reads it: tokens ``first`` to ``end`` (the ``;`` after
    its last token, or the end of the tokens), and the statement (``None``: an empty one)."""

    first: int
    end: int
    node: exp.Expression | None


@dataclass(frozen=True, slots=True)
class Extents:
    """The statements of a token list as sqlglot's parser reads them, in order; if it fails,
    ``failed`` is the extent of the statement it fails on (to the end of the part between
    semicolons it was reading) and the statements after it are not known."""

    statements: list[Extent]
    failed: Extent | None = None
    chunks: int = 0  # how many parts between semicolons the tokens hold


def _chunks(tokens: list[Token]) -> list[tuple[int, int]]:
    """The token ranges sqlglot's parser reads statements from, as ``Parser._parse`` makes
    them: the runs between ``;`` tokens, and a ``;`` that carries a comment on its own."""
    chunks: list[tuple[int, int]] = []
    begin, last = 0, len(tokens) - 1
    for i, token in enumerate(tokens):
        if token.token_type is TokenType.SEMICOLON:
            chunks.append((begin, i))
            if token.comments:
                chunks.append((i, i + 1))
            begin = i + 1
            if i == last:
                return chunks
    chunks.append((begin, len(tokens)))
    return chunks


def statement_extents(tokens: list[Token], text: str, dialect: Dialect, batches: tuple[int, ...] = ()) -> Extents:
    """``_statement_extents`` of each batch of a T-SQL script (``batches``: the positions in
    ``tokens`` where a batch after a ``GO`` line starts, ``batch_tokens``): a batch ends every
    statement in it; a batch the parser refuses ends what is known."""
    if not batches:
        return _statement_extents(tokens, text, dialect)
    out: list[Extent] = []
    chunks = 0
    bounds = (0, *batches, len(tokens))
    for begin, end in zip(bounds, bounds[1:]):
        found = _statement_extents(tokens[begin:end], text, dialect)
        out += [Extent(e.first + begin, e.end + begin, e.node) for e in found.statements]
        chunks += found.chunks
        if found.failed is not None:
            return Extents(out, Extent(found.failed.first + begin, found.failed.end + begin, None), chunks)
    return Extents(out, None, chunks)


def _statement_extents(tokens: list[Token], text: str, dialect: Dialect) -> Extents:
    """Where sqlglot's parser puts each statement of ``tokens`` (``text`` tokenized).

    sqlglot cuts the tokens at every ``;`` and reads a statement from one such part — or from
    several, when the statement holds a block whose own statements end in ``;`` (T-SQL's
    ``CREATE PROCEDURE … AS BEGIN … END``, ``IF … BEGIN … END``, Trino's routines).  Which
    parts each statement took is known only to the parser: its statement method is wrapped to
    note the part it starts at and the part it ends at (``Parser._chunk_index``; sqlglot is
    pinned, and ``tests/test_cli_batch_statements.py`` checks this reading on every golden case).
    A part it does not read with that method is an END it takes as a statement of its own.  No
    ``;`` is ever looked for by hand.  Text nested too deeply for the parser is cut at every part
    (each is then refused on its own).  Callers run this on the deep-stack worker."""
    chunks = _chunks(tokens)
    if too_deep(tokens, MAX_NESTING, _constructors(dialect)) is not None:
        return chunk_extents(tokens)  # the parser would refuse it: each part fails on its own
    parser = dialect.parser()
    read: list[tuple[int, int, exp.Expression | None]] = []  # (first part, past its last part, statement)
    state = {"begin": 0, "done": False}

    def statement(active) -> exp.Expression | None:
        state["begin"], state["done"] = active._chunk_index - 1, False
        node = type(active)._parse_statement(active)
        read.append((state["begin"], active._chunk_index, node))
        state["done"] = True
        return node

    failed: Extent | None = None
    try:
        parser._parse(statement, tokens, text)
    except RecursionError:
        raise
    except (sqlglot_errors.SqlglotError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            AssertionError, LookupError, ArithmeticError, UnicodeError):
        if state["done"] and read:
            read.pop()  # read whole, then refused for the tokens left after it
        reading = min(max(parser._chunk_index - 1, state["begin"]), len(chunks) - 1)
        failed = Extent(chunks[state["begin"]][0], chunks[reading][1], None)
    else:
        if len(parser._chunks) != len(chunks):  # never seen: the parts are not sqlglot's
            raise AssertionError(f"sqlglot cut {len(parser._chunks)} parts where {len(chunks)} were expected")
    def unread(c: int) -> Extent:
        # A part the statement method did not read is an END the parser takes as a statement of
        # its own (after other statements: ``EndStatement``) — or a lone ``;`` that carries a
        # comment (``…;--``), which is no statement (a ``Semicolon``, as the parser reads it).
        begin, end = chunks[c]
        lone = end == begin + 1 and tokens[begin].token_type is TokenType.SEMICOLON
        return Extent(begin, end, exp.Semicolon() if lone else exp.EndStatement())

    out: list[Extent] = []
    cursor = 0
    for begin, end, node in read:
        out.extend(unread(c) for c in range(cursor, begin))
        out.append(Extent(chunks[begin][0], chunks[end - 1][1], node))
        cursor = end
    if failed is None:
        out.extend(unread(c) for c in range(cursor, len(chunks)))
    else:
        out.extend(unread(c) for c in range(cursor, state["begin"]))
    return Extents(out, failed, len(chunks))


def chunk_extents(tokens: list[Token]) -> Extents:
    """Every part between ``;`` tokens as a statement of its own (for text the parser cannot
    read: each part is then refused on its own, with its error)."""
    chunks = _chunks(tokens)
    return Extents([Extent(begin, end, exp.Command(this="?") if end > begin and not (
        end == begin + 1 and tokens[begin].token_type is TokenType.SEMICOLON) else None) for begin, end in chunks],
                   None, len(chunks))
