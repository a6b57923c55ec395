"""OpenLineage run events → observed edges (specs/openlineage.md, "Run events").

Each line of the input is one event (JSON lines, as the OpenLineage file transport writes them,
or one request body of ``POST /api/v1/lineage``).  A line that is not valid JSON, not an
OpenLineage event the core schema accepts, or larger than ``MAX_EVENT_BYTES`` is *rejected*
with its line number and the reason.  A valid event that gives no edge is *skipped*, counted by
reason: a job or dataset event (static lineage: nothing ran), a run that did not complete, one
older than the retention, or one with no input and output the environment declares.

A COMPLETE event gives an edge from each input to each output that are two assets of the
environment (``naming.DatasetMapping``): datasets it does not declare give no edge and are not
counted.  A dataset whose own name maps to no asset is tried under the names its ``symlinks``
facet gives it of type TABLE (Spark, Hive and Flink name a catalog table by its storage location
and put the table's name there); the event's column lineage, which names its inputs as the
datasets are named, follows the same resolution.  The output's column-lineage facet, where present, gives the column detail; a facet
that does not validate is left out, and the summary says so, but the edge stands.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from typing import Any

from ..governance.sql_reading import ColumnLink
from .mapping import from_legacy, from_standard
from .naming import DatasetMapping
from .observed import DEFAULT_RETENTION, EVENT, ObservedEdge, Rejected, Summary, utc
from .validation import core_problems, event_kind, facet_problems

# An event larger than this is refused: an OpenLineage event is metadata, and one this large is
# a producer's mistake (a logical plan or schema of thousands of columns is well below it).
MAX_EVENT_BYTES = 2 * 1024 * 1024

COMPLETE = "COMPLETE"
TABLE = "TABLE"  # the symlink identifier type that names a table (the spec's example: "table")
# At most this many events are named in the notes for naming no declared asset: enough to see
# why a mapping misses, not a copy of a file of another environment's events.
MAX_NAMING_NOTES = 5
UNKNOWN_CONFIDENCE = "unknown"  # what an integration reported: not ours to vouch for


def parse_line(number: int, raw: str | bytes, max_bytes: int = MAX_EVENT_BYTES) -> dict[str, Any] | Rejected:
    """One line → the event it holds, or why it is refused."""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        return Rejected(number, f"the event is {size:,} bytes, more than the limit of {max_bytes:,}")
    try:
        document = json.loads(raw)
    except UnicodeDecodeError as error:
        return Rejected(number, f"not UTF-8 text: {error.reason} at byte {error.start}")
    except json.JSONDecodeError as error:
        return Rejected(number, f"not valid JSON: {error.msg} at column {error.colno}")
    except RecursionError:
        return Rejected(number, "not valid JSON: nested too deeply")
    if not isinstance(document, dict):
        return Rejected(number, "not an OpenLineage event: a JSON object is expected")
    found = core_problems(document, event_kind(document))
    if found:
        return Rejected(number, f"not a valid OpenLineage {event_kind(document)}: {found[0]}")
    return document


def numbered_lines(source: Iterable[str | bytes]) -> Iterator[tuple[int, str | bytes]]:
    """(line number, text) of every line that is not blank."""
    for number, line in enumerate(source, 1):
        if isinstance(line, bytes):
            line = line.rstrip(b"\r\n")
            if not line.strip():
                continue
        else:
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
        yield number, line


class EventObserver:
    """Turns events into observed edges for one environment, counting what it does."""

    def __init__(self, mapping: DatasetMapping, *, now: datetime, retention: timedelta = DEFAULT_RETENTION,
                 max_bytes: int = MAX_EVENT_BYTES):
        self.mapping = mapping
        self.now = utc(now)
        self.retention = retention
        self.max_bytes = max_bytes
        self.summary = Summary()
        self.edges: list[ObservedEdge] = []
        self.received_event = False  # a valid run event arrived (the observed mark is recorded)
        self._naming_notes = 0  # events named in the notes for naming no declared asset

    def feed_lines(self, source: Iterable[str | bytes]) -> None:
        for number, line in numbered_lines(source):
            self.summary.lines += 1
            parsed = parse_line(number, line, self.max_bytes)
            if isinstance(parsed, Rejected):
                self.summary.rejected.append(parsed)
            else:
                self.feed(parsed, number)

    def feed(self, document: dict[str, Any], number: int) -> None:
        """One valid event (``number``: its line, for what the summary says of it)."""
        self.summary.accepted += 1
        kind = event_kind(document)
        if kind != "RunEvent":
            self.summary.skip(f"a {kind}: static lineage, nothing ran")
            return
        self.received_event = True
        event_type = document.get("eventType")
        if event_type != COMPLETE:
            self.summary.skip(f"eventType {event_type or 'absent'}: only a COMPLETE run gives edges")
            return
        seen_at = utc(datetime.fromisoformat(document["eventTime"]))
        if seen_at <= self.now - self.retention:
            self.summary.skip("older than the retention")
            return
        found = self._edges(document, seen_at, number)
        if not found:
            self.summary.skip("no input and output the environment declares")
        self.edges.extend(found)

    def _edges(self, document: dict[str, Any], seen_at: datetime, number: int) -> list[ObservedEdge]:
        names = _EventNames(self.mapping, number, self.summary.notes)
        inputs = {}
        for dataset in document.get("inputs") or []:
            found = names.asset(dataset)
            if found is not None:
                inputs.setdefault(found, []).append(dataset)
        targets = [(output, names.asset(output)) for output in document.get("outputs") or []]
        if not inputs or all(target is None for _, target in targets):
            self._say_why_nothing_is_declared(document, number)
            return []
        job = f"{document['job']['namespace']}/{document['job']['name']}"
        run_id = document["run"]["runId"]
        edges = []
        for output, target in targets:
            if target is None:
                continue
            detail = self._column_detail(output, number, names)
            for source in inputs:
                if source == target:
                    continue
                # No column of this input in the facet: no column detail, rather than "none traced".
                columns = tuple(link for owner, link in detail if owner == source) if detail else None
                columns = columns or None
                edges.append(ObservedEdge(source, target, EVENT, job, run_id, seen_at, columns))
        return edges

    def _say_why_nothing_is_declared(self, document: dict[str, Any], number: int) -> None:
        """A note naming the datasets (and their table symlinks) of an event that gave no edge, for
        the first few such events: what the mapping was asked, so a user can tell which rule is
        missing."""
        self._naming_notes += 1
        if self._naming_notes > MAX_NAMING_NOTES:
            return

        def named(datasets) -> str:
            spelled = [_spelled(d) for d in datasets or [] if isinstance(d, dict)]
            return ", ".join(spelled) or "none"
        self.summary.notes.append(
            f"line {number}: no declared input and output among inputs {named(document.get('inputs'))}; "
            f"outputs {named(document.get('outputs'))}")

    def _column_detail(self, output: dict[str, Any], number: int,
                       names: _EventNames) -> list[tuple[str, ColumnLink]] | None:
        """(asset read, link) for every input field of the output's column-lineage facet; None
        when the event has no (usable) facet."""
        facet = (output.get("facets") or {}).get("columnLineage")
        if facet is None:
            return None
        found = facet_problems("columnLineage", facet)
        if found:
            self.summary.notes.append(f"line {number}: column lineage left out ({found[0]})")
            return None
        detail: list[tuple[str, ColumnLink]] = []
        fields = facet.get("fields") or {}
        for target_field, entry in fields.items():
            legacy = from_legacy(entry.get("transformationType")) if "transformationType" in entry else None
            for input_field in entry.get("inputFields") or []:
                detail.extend(self._links(input_field, target_field, legacy, names))
        for input_field in facet.get("dataset") or []:
            # A dependency of the whole dataset concerns each of its fields.
            for target_field in fields:
                detail.extend(self._links(input_field, target_field, None, names))
        return list(dict.fromkeys(detail))

    def _links(self, input_field: dict[str, Any], target_field: str, legacy,
               names: _EventNames) -> Iterator[tuple[str, ColumnLink]]:
        owner = names.field_owner(input_field["namespace"], input_field["name"])
        if owner is None:
            return
        transformations = input_field.get("transformations") or []
        kinds = [from_standard(t.get("type"), t.get("subtype"), t.get("masking")) for t in transformations]
        if not kinds:
            kinds = [legacy or from_standard("DIRECT", None, None)]
        for kind in dict.fromkeys(kinds):
            yield owner, ColumnLink(input_field["field"], target_field, kind.relationship, kind.transformation,
                                    UNKNOWN_CONFIDENCE)


class _EventNames:
    """Which asset each dataset of one event is: its own name through the mapping, else the one
    asset its table symlinks name.  Remembers what it resolved, so that the column lineage,
    which names an input field by the dataset's own (namespace, name), finds the same asset."""

    def __init__(self, mapping: DatasetMapping, number: int, notes: list[str]):
        self.mapping = mapping
        self.number = number
        self.notes = notes
        self.resolved: dict[tuple[str, str], str] = {}

    def asset(self, dataset: dict[str, Any]) -> str | None:
        namespace, name = dataset["namespace"], dataset["name"]
        found = self.mapping.asset(namespace, name)
        if found is None:
            found = self._by_symlinks(dataset)
        if found is not None:
            self.resolved.setdefault((namespace, name), found)
        return found

    def field_owner(self, namespace: str, name: str) -> str | None:
        found = self.resolved.get((namespace, name))
        return found if found is not None else self.mapping.asset(namespace, name)

    def _by_symlinks(self, dataset: dict[str, Any]) -> str | None:
        identifiers = _table_symlinks(dataset)
        if identifiers is None:
            self.notes.append(f"line {self.number}: the symlinks facet of {_spelled(dataset, False)} is left out "
                              "(expected identifiers, each with a namespace, name and type)")
            return None
        found = {}
        for namespace, name in identifiers:
            asset = self.mapping.asset(namespace, name)
            if asset is not None:
                found.setdefault(asset, name)
        if len(found) > 1:
            # Two declared assets for one dataset: which one the run read or wrote is not known,
            # so neither is said to be it.
            self.notes.append(f"line {self.number}: {_spelled(dataset, False)} is left out: its table symlinks name "
                              f"{len(found)} declared assets ({', '.join(sorted(found.values()))})")
            return None
        return next(iter(found), None)


def _table_symlinks(dataset: dict[str, Any]) -> list[tuple[str, str]] | None:
    """(namespace, name) of every identifier of type TABLE in the dataset's symlinks facet; []
    when it has none; None when the facet is malformed."""
    facet = (dataset.get("facets") or {}).get("symlinks")
    if facet is None:
        return []
    identifiers = facet.get("identifiers") if isinstance(facet, dict) else None
    if identifiers is None and isinstance(facet, dict):
        return []
    if not isinstance(identifiers, list):
        return None
    found = []
    for identifier in identifiers:
        if not isinstance(identifier, dict) or not all(
                isinstance(identifier.get(key), str) for key in ("namespace", "name", "type")):
            return None
        if identifier["type"].upper() == TABLE:
            found.append((identifier["namespace"], identifier["name"]))
    return found


def _spelled(dataset: dict[str, Any], with_symlinks: bool = True) -> str:
    """A dataset as a note names it: namespace/name, and the tables its symlinks name."""
    namespace, name = dataset.get("namespace"), dataset.get("name")
    text = f"{namespace}{name}" if str(name).startswith("/") else f"{namespace}/{name}"
    if with_symlinks:
        tables = _table_symlinks(dataset)
        if tables:
            text += f" (symlinks: {', '.join(name for _, name in tables)})"
    return text
