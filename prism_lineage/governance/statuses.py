"""Statuses and sentences, in words: answers carry these exact strings."""

from __future__ import annotations

from enum import StrEnum


class SqlStatus(StrEnum):
    """Why an asset's SQL was not read (an asset whose SQL was read has no status)."""

    NOT_READ_YET = "Not read yet"
    NOT_PARSED = "Could not be parsed"
    IN_FILE = "Kept in a file, not read"


# When a table is written by several assets, the one status it shows is the first of these
# that applies: an unread statement says more about what may be missing than a file does.
SQL_STATUS_ORDER = (SqlStatus.NOT_READ_YET, SqlStatus.NOT_PARSED, SqlStatus.IN_FILE)


class MarkStatus(StrEnum):
    """Whether the control plane records a mark."""

    RECORDED = "Recorded"
    NOT_RECORDED_YET = "Not recorded yet"
    COULD_NOT_RUN = "Could not run"
    NOT_RECORDED = "Not recorded"


class Mark(StrEnum):
    """How an edge is known, with the line style that says it without colour."""

    DECLARED = "declared"
    PARSED = "parsed"
    OBSERVED = "observed"


LINE_STYLE = {Mark.DECLARED: "solid", Mark.PARSED: "dashed", Mark.OBSERVED: "dotted"}


class EnvironmentStatus(StrEnum):
    COMPUTED = "computed"
    NOT_COMPUTED = "not computed"


class ParserState(StrEnum):
    """What the last pass over an environment's SQL could do.

    ``ran``: the parser read what it was given.  ``not_run``: no pass has read any SQL yet.
    The four failures differ in who is told: a control plane with no parser, or one too old for
    this release, tells everyone; a parser that gave no answer, or a store that refused the
    write, tells only a viewer who may see SQL that was waiting when the attempt failed.
    """

    RAN = "ran"
    NOT_RUN = "not_run"
    NO_PARSER = "no_parser"
    PARSER_TOO_OLD = "parser_too_old"
    NO_ANSWER = "no_answer"
    STORE_REFUSED = "store_refused"


TOLD_TO_EVERYONE = frozenset({ParserState.NO_PARSER, ParserState.PARSER_TOO_OLD})
TOLD_TO_SQL_VIEWERS = frozenset({ParserState.NO_ANSWER, ParserState.STORE_REFUSED})


class Via(StrEnum):
    """Whose declaration or SQL gives an edge."""

    VIEW = "view"
    PIPELINE = "pipeline"
    # Observed edges (prism_lineage/openlineage): seen in an OpenLineage run, or in a query log.
    RUN = "run"
    QUERY_LOG = "query log"


NOT_VISIBLE = "Some lineage is not visible to you."
DECLARED_READ_NOTE = "Listed by the view's author; nothing checks it against the view's SQL."
PIPELINE_ORDER_NOTE = ("The pipeline runs the asset writing the first table before the one writing the second; "
                       "this says nothing about whether one reads the other.")
FILE_SQL_NOTE = "SQL kept in a file is not read, so what it reads is not shown."
NO_COLUMN_NOTE = "No column is traced for this edge."
NO_COLUMN_ANSWER_NOTE = "No column is traced for a parsed edge shown."
PARSER_NOTE = "The SQL parser could not run, so parsed edges may be missing."
NOT_COMPUTED_NOTE = ("Lineage of this environment is not computed: its edges have not been worked out, "
                     "which does not mean that nothing is connected.")
HELD_NOTE = ("This environment reviews changes: what the branch brings is held until a person approves the "
             "environment's move to it, and its lineage is not read until then.")
NO_EDGE_NOTE = "No edge is drawn around this asset among the assets you may see."
CUT_NOTE = "The answer is cut at {limit} assets: narrow it by direction or depth."


def ref_note(read, file: str) -> str:
    """The note of the declared edge a dbt ``ref()`` or ``source()`` call gives (``read``: a
    ``declarations.DeclaredRead``)."""
    if not read.through:
        return f"Declared by {read.call} in {file}."
    hops = "; ".join(f"{model} declares {call}" for model, call in read.through)
    return f"Declared by {read.call} in {file}, through ephemeral models: {hops}."


def parsed_only_note(name: str, declared_by: str) -> str:
    """An asset whose SQL reads ``name`` that its declarations do not name."""
    if declared_by == "refs":
        return f"Its SQL reads {name} without ref() or source()."
    return f"Its SQL reads {name}, which its reads list does not name."


def declared_only_note(name: str, call: str | None) -> str:
    """An asset that declares a read of ``name`` its SQL does not perform (``call``: the dbt
    call declaring it; None: its reads list)."""
    if call is not None:
        return f"{call} declares a read of {name}, which its SQL does not perform."
    return f"Its reads list names {name}, which its SQL does not read."


def sql_not_read_note(count: int) -> str:
    verb = "has" if count == 1 else "have"
    return (f"{count} of the assets shown {verb} SQL that was not read: what such an asset reads is not "
            "shown, so it reads at least what is drawn.")


def not_computed_notes(held_for_review: bool) -> list[str]:
    """What an answer about an environment that is not computed says, and why when it is held."""
    return [NOT_COMPUTED_NOTE, HELD_NOTE] if held_for_review else [NOT_COMPUTED_NOTE]


def impact_unread_notes(elsewhere: list[str], statuses: list[str]) -> list[str]:
    """What an impact answer says about SQL it could not read (shared by the in-memory and the
    stored answers).  ``elsewhere``: the SQL status of every asset the viewer sees that is
    neither the asset nor listed downstream of it, whose SQL was not read — what it reads is not
    known, so it may read the asset too and the list is only a floor.  ``statuses``: the status
    of every asset the viewer sees (where such SQL exists at all)."""
    notes = []
    if elsewhere:
        counts = {status: elsewhere.count(status) for status in (s.value for s in SQL_STATUS_ORDER)}
        said = "; ".join(f"{n} {status.lower()}" for status, n in counts.items() if n)
        they = "what they read is" if len(elsewhere) != 1 else "what it reads is"
        notes.append(f"There may be more: {len(elsewhere)} other asset{'s' if len(elsewhere) != 1 else ''} "
                     f"you may see {'have' if len(elsewhere) != 1 else 'has'} SQL that was not read ({said}), "
                     f"so {they} not known.")
    if SqlStatus.IN_FILE.value in statuses:
        notes.append(FILE_SQL_NOTE)
    return notes
