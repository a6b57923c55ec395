"""The bodies of ``CREATE PROCEDURE`` / ``CREATE FUNCTION`` (specs/scripts.md, "Procedure bodies").

A body written in SQL — T-SQL's ``AS BEGIN … END``, BigQuery's ``BEGIN … END``, Snowflake
Scripting's ``AS $$ BEGIN … END $$`` (or a quoted string), Postgres' ``AS $$ … $$`` in
``LANGUAGE sql | plpgsql`` — is read as a script: its statements follow the CREATE, each
answered on its own and naming the routine it belongs to (``Statement.procedure``).  Only
statements that read or write data are kept (queries, INSERT/UPDATE/DELETE/MERGE, CREATE …
AS, COPY, dynamic SQL, and the variables they read); control flow sqlglot does not read
(``IF``, ``LOOP``, ``FOR`` … as raw commands), a body that does not parse, or one in another
language is said on the CREATE's answer (``uncertain``), never dropped without a word.
"""

from __future__ import annotations

import re

from sqlglot import exp

from ...errors import ParseError
from ...ir import SourceText
from .parsing import parse_statements, raised_by_sqlglot

ROUTINE_KINDS = ("PROCEDURE", "FUNCTION")
# Keys in a sqlglot node's ``meta``: the routine a body statement belongs to, and (on the
# CREATE) why parts of the body were not read.
BODY_OF = "prism_routine"
NOT_READ = "prism_body_not_read"
# The LANGUAGE of the routine whose body a statement is (upper case; absent: none written):
# PL/pgSQL's ``SELECT … INTO v`` assigns a variable, plain SQL's creates a table (variables.py).
BODY_LANGUAGE = "prism_routine_language"
# On a CREATE FUNCTION whose body is a string: the statements read from it (routines.py inlines
# a function's body where it is called).
BODY_STATEMENTS = "prism_body_statements"

_KEPT = (exp.Query, exp.Values, exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Copy, exp.Create,
         exp.Declare, exp.Set, exp.Execute, exp.ExecuteSql, exp.MultitableInserts)
_QUIET = (exp.Return, exp.Transaction, exp.Commit, exp.Rollback, exp.Semicolon, exp.EndStatement)
_SQL_LANGUAGES = ("SQL", "PLPGSQL")
# A body's own BEGIN … END (after an optional DECLARE section), dropped to read its statements.
_WRAPPED = re.compile(r"^(\s*(?:DECLARE\b.*?)?\bBEGIN\b)(.*?)(\bEND\b\s*;?\s*)$", re.S | re.I)


def is_routine(node: exp.Expression) -> bool:
    return isinstance(node, exp.Create) and str(node.args.get("kind") or "").upper() in ROUTINE_KINDS


def routine_name(node: exp.Create) -> str:
    """The routine's name as written (``dbo.p``, ``ds.p``)."""
    this = node.this
    name = this.this if isinstance(this, (exp.UserDefinedFunction, exp.StoredProcedure)) else this
    if isinstance(name, exp.Table):
        return ".".join(p.name for p in name.parts)
    if isinstance(name, exp.Identifier):
        return name.name
    return name.sql() if isinstance(name, exp.Expression) else str(name or "")


def define_parameters(node: exp.Create, ctx) -> None:
    """A routine's parameters are variables of its body (no column source, value unknown):
    ``WHERE id = p_id`` in the body reads the parameter, not a column."""
    from .variables import ScriptVariable

    define = getattr(ctx.catalog, "define_variable", None)
    if define is None:
        return
    name = routine_name(node)
    for parameter in node.this.expressions if isinstance(node.this, exp.Expression) else []:
        if isinstance(parameter, exp.ColumnDef):
            written = parameter.this
            text = written.this.name if isinstance(written, exp.Parameter) else written.name
            if text:
                define(ScriptVariable(text, f"a parameter of {name}", ctx.origin(parameter), None))


def unanalysed_in_body(node: exp.Expression, ctx, routine: str, error: Exception):
    """A statement of a routine's body that names what the script does not know (a loop's
    record, a cursor, a table the body's control flow makes): its lineage is unknown, said."""
    from .targets import resolve_target, table_of, unanalysed

    ctx.uncertain.clear()
    message = str(error).split(" (at ", 1)[0]
    written = table_of(node.this) if isinstance(node, (exp.Insert, exp.Update, exp.Delete, exp.Merge)) else None
    target = resolve_target(written, ctx).name if written is not None else None
    return unanalysed(node, ctx, node.key.lower(), f"a statement of the body of {routine} cannot be read "
                      f"({message})", target)


def expand_routines(nodes: list[exp.Expression], dialect, text: str, source: SourceText) -> list[exp.Expression]:
    """``nodes`` with the statements of every SQL routine body placed after its CREATE."""
    if not any(is_routine(n) for n in nodes):
        return nodes
    nodes = list(nodes)
    out: list[exp.Expression] = []
    index = 0
    while index < len(nodes):
        node = nodes[index]
        index += 1
        out.append(node)
        if not is_routine(node):
            continue
        name = routine_name(node)
        try:
            body, not_read, consumed = _body(node, nodes[index:], dialect, text, source)
        except ParseError:
            raise
        except Exception as error:  # noqa: BLE001 - sqlglot's nodes of a body it half read
            if not raised_by_sqlglot(error):
                raise
            body, not_read, consumed = [], [f"the body of {name} cannot be read: what it reads and writes is "
                                            "unknown"], 0
        index += consumed
        body, after = _after_string_body(node, body)
        if str(node.args.get("kind") or "").upper() == "FUNCTION":
            # A body read only in part is not inlined: what is not read may matter.
            node.meta[BODY_STATEMENTS] = list(body) if not not_read else "its body is not read whole"
            if len(body) == 1 and isinstance(body[0], exp.Condition):
                # Snowflake's ``AS 'x + 1'``: the body is an expression, not statements; it is
                # inlined where the function is called (routines.py).
                body = []
        kept, skipped = _kept(body)
        for statement in kept:
            statement.meta[BODY_OF] = name
            language = _language(node)
            if language is not None:
                statement.meta[BODY_LANGUAGE] = language
            out.append(statement)
        nodes[index:index] = after  # read next, as the script's own (another routine's body too)
        if skipped:
            shown = ", ".join(dict.fromkeys(skipped))
            not_read.append(f"statements of the body of {name} are not read ({shown}): what they read and write "
                            "is unknown")
        if not_read:
            node.meta[NOT_READ] = not_read
    return out


def _body(node: exp.Create, rest: list[exp.Expression], dialect, text: str, source: SourceText):
    """(the body's statements, reasons parts of it were not read, how many of ``rest`` it took)."""
    name = routine_name(node)
    language = _language(node)
    body = node.args.get("expression")
    if language is not None and language not in _SQL_LANGUAGES:
        return [], [f"the body of {name} is in LANGUAGE {language}, which is not read: what it reads and "
                    "writes is unknown"], 0
    if isinstance(body, exp.Block):
        parts: list[exp.Expression] = []
        reasons: list[str] = []
        for item in body.expressions:
            if isinstance(item, exp.RawString):  # Snowflake Scripting: $$ … $$
                found, why = _parse_text(item.name, name, dialect, text, source)
                parts += found
                reasons += why
            else:
                parts.append(item)
        return parts, reasons, 0
    if isinstance(body, (exp.Heredoc, exp.Literal)) and (not isinstance(body, exp.Literal) or body.is_string):
        found, why = _parse_text(body.name, name, dialect, text, source)
        return found, why, 0
    if isinstance(body, exp.Command) and str(body.this).upper() == "BEGIN":
        # BigQuery: sqlglot reads ``BEGIN s1; s2; … END`` as the CREATE holding s1's text, then
        # s2 … as statements of their own, up to an END.
        found, why = _parse_text(body.expression.name if isinstance(body.expression, exp.Expression)
                                 else str(body.expression or ""), name, dialect, text, source)
        taken = statements_taken(node, rest)
        found += [s for s in rest[:taken] if not isinstance(s, exp.EndStatement)]
        if not (taken and isinstance(rest[taken - 1], exp.EndStatement)):
            why.append(f"the body of {name} has no END: the statements after it are read as its body")
        return found, why, taken
    return [], [], 0  # an expression body (``AS (x + 1)``) or none: no statements


def statements_taken(node: exp.Expression | None, rest: list) -> int:
    """How many of the statements ``rest`` after ``node`` are the body of the routine ``node``
    creates — BigQuery's ``CREATE PROCEDURE … BEGIN s1; s2; … END``, which sqlglot reads as
    the CREATE, then s2 … and the END as statements of their own — and so belong with it (a
    query log is cut so, cli/batch.py); 0 for anything else."""
    if not is_routine(node):
        return 0
    language = _language(node)
    if language is not None and language not in _SQL_LANGUAGES:
        return 0
    body = node.args.get("expression")
    if not (isinstance(body, exp.Command) and str(body.this).upper() == "BEGIN"):
        return 0
    for taken, statement in enumerate(rest, start=1):
        if isinstance(statement, exp.EndStatement):
            return taken
    return len(rest)


def _after_string_body(node: exp.Create, body: list[exp.Expression]):
    """(the body's statements, the statements that follow the CREATE): sqlglot reads a body given
    as a string (Snowflake's ``AS $$ … $$``) and then every statement after the CREATE's ``;``
    into one block with it (``CREATE PROCEDURE p() … AS $$ … $$; SELECT 1`` is one CREATE whose
    block holds the string and the SELECT).  What follows the string is not the body: those are
    statements of the script, after the CREATE (a T-SQL body without a string runs to the end of
    its batch, so there it stays the body)."""
    block = node.args.get("expression")
    if not isinstance(block, exp.Block):
        return body, []
    items = list(block.expressions)
    strings = [i for i, item in enumerate(items) if isinstance(item, (exp.RawString, exp.Heredoc))]
    if not strings or strings[-1] == len(items) - 1:
        return body, []
    after = {id(item) for item in items[strings[-1] + 1:]}
    return [s for s in body if id(s) not in after], [s for s in items[strings[-1] + 1:] if s is not None]


def _language(node: exp.Create) -> str | None:
    properties = node.args.get("properties")
    for prop in properties.expressions if properties is not None else []:
        if isinstance(prop, exp.LanguageProperty):
            return prop.name.upper()
    return None


# Control flow around a body's statements (PL/pgSQL, Snowflake Scripting, BigQuery): dropped
# to read the statement it guards — a statement in a branch or a loop may run, so it is answered.
_CONTROL = re.compile(r"^\s*(?:(?:ELSE\s*IF|ELSIF|IF|WHILE|FOR)\b.*?\b(?:THEN|LOOP|DO)\b|ELSE\b|LOOP\b|BEGIN\b|"
                      r"REPEAT\b|EXCEPTION\s+WHEN\b.*?\bTHEN\b|WHEN\b.*?\bTHEN\b)", re.S | re.I)
# What writes no data: the end of a block, the routine's result, a message.
_QUIET_TEXT = re.compile(r"^\s*(?:END\b|RETURN\b|RAISE\s+(?:NOTICE|INFO|LOG|DEBUG)\b|NULL\s*$|COMMIT\b|ROLLBACK\b)",
                         re.S | re.I)
_CONTROL_COMMANDS = ("IF", "ELSE", "ELSIF", "ELSEIF", "WHILE", "FOR", "LOOP", "END", "RAISE", "LET", "CASE",
                     "EXCEPTION", "REPEAT", "BEGIN", "RETURN", "WHEN")


def _parse_text(body: str, name: str, dialect, text: str, source: SourceText):
    """The statements of a body given as text, parsed where it stands in the script (so their
    positions are the script's); a body sqlglot does not read whole (control flow), statement
    by statement."""
    wrapped = _WRAPPED.match(body)
    inner, lead = (wrapped.group(2), len(wrapped.group(1))) if wrapped else (body, 0)
    at = text.find(body)
    offset = (at if at >= 0 else 0) + lead
    padded = re.sub(r"[^\n]", " ", text[:offset]) if at >= 0 else ""
    try:
        whole = parse_statements(padded + inner, dialect, source)
        if not any(isinstance(n, exp.Command) and str(n.this).upper() in _CONTROL_COMMANDS for n in whole):
            return whole, []
    except ParseError:
        pass
    found: list[exp.Expression] = []
    unread: list[str] = []
    position = 0
    for piece in inner.split(";"):
        start = position
        position += len(piece) + 1
        while True:  # IF … THEN, ELSE, LOOP … before the statement: blanked, positions kept
            control = _CONTROL.match(piece)
            if control is None or not control.group(0).strip():
                break
            piece = " " * control.end() + piece[control.end():]
        if not piece.strip() or _QUIET_TEXT.match(piece):
            continue
        try:
            parsed = parse_statements(padded + " " * start + piece, dialect, source)
        except ParseError:
            parsed = None
        if parsed is None or any(isinstance(n, exp.Command) and str(n.this).upper() in _CONTROL_COMMANDS
                                 for n in parsed):
            unread.append(" ".join(piece.split())[:40])
        else:
            found += parsed
    reasons = [f"statements of the body of {name} are not read ({'; '.join(unread)}): what they read and write "
               "is unknown"] if unread else []
    return found, reasons


def parse_body_text(body: str, dialect, text: str, source: SourceText) -> list[exp.Expression]:
    """The statements of a body given as a string, parsed where it stands in the script (its
    nodes' positions are the script's); a ``ParseError`` if sqlglot cannot read it whole."""
    at = text.find(body)
    padded = re.sub(r"[^\n]", " ", text[:at]) if at >= 0 else ""
    return parse_statements(padded + body, dialect, source)


def _kept(body: list[exp.Expression]) -> tuple[list[exp.Expression], list[str]]:
    """The statements of a body that move data (control-flow blocks opened), and a short text
    of each that is not read."""
    kept: list[exp.Expression] = []
    skipped: list[str] = []
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if isinstance(node, (exp.IfBlock, exp.WhileBlock)):
            # The statements of each branch may run: each is answered.
            inner = [node.args.get(k) for k in ("true", "false", "body")]
            nested = [s for b in inner if b is not None for s in (b.expressions if isinstance(b, exp.Block) else [b])]
            stack.extend(reversed(nested))
        elif isinstance(node, exp.Block):
            stack.extend(reversed(node.expressions))
        elif isinstance(node, exp.Set) and _session_option(node):
            continue  # SET NOCOUNT ON …: no data
        elif isinstance(node, _KEPT):
            kept.append(node)
        elif not isinstance(node, _QUIET):
            try:
                words = node.sql().split()
            except Exception:  # noqa: BLE001 - sqlglot cannot write every node it read back
                words = []
            skipped.append(" ".join(words[:2]) if words else type(node).__name__.upper())
    return kept, skipped


def _session_option(node: exp.Set) -> bool:
    """T-SQL's ``SET NOCOUNT ON`` and its kind: options of the session, not variables."""
    return node.sql().upper().startswith(("SET NOCOUNT", "SET XACT_ABORT", "SET ANSI_", "SET QUOTED_IDENTIFIER",
                                          "SET TRANSACTION", "SET DATEFORMAT", "SET LOCK_TIMEOUT"))
