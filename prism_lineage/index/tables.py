"""The index's tables: their directories, Arrow schemas, keys and how a newer epoch supersedes.

* ``parse/nodes``: one row per declared asset (LatestBy ``asset_id``);
* ``compile/reads``: what reading an asset's SQL said (LatestBy ``asset_id``); joined to the
  nodes with LEFT JOIN, so a read row never creates a node;
* ``lineage/nodes``: the merged model, nodes with their compiled fields, written every sync
  (an empty delta too, to carry the compiled fields forward) (LatestBy ``asset_id``);
* ``parse/edges``: the incoming edges of a target as one group (LatestGroup ``target_id``: the
  whole group from the newest epoch that mentions it; a group emptied is written as one row
  with no source);
* ``compile/statements``: what reading each statement gave — the read ledger an incremental
  sync re-uses — grouped by the asset the statements write (LatestGroup ``asset_id``: every
  statement of an asset from the newest epoch that mentions it; a group emptied is one row with
  no statement);
* ``alive``: the ids alive at each sync; nodes no longer alive are pruned.

A missing string is NULL; a missing list is an empty list (list columns are not nullable).  Where
"unknown" and "none" differ (a statement's outputs, the columns a dependency saw), a boolean
``…_known`` column says which, so an empty list never stands for unknown.
``ingested_at`` is the last column, not nullable, one value per run.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import pyarrow as pa


class Supersede(Enum):
    LATEST_BY = "latest_by"  # one row per key: the newest
    LATEST_GROUP = "latest_group"  # every row of the newest epoch that mentions the key


INGESTED_AT = pa.field("ingested_at", pa.timestamp("us", tz="UTC"), nullable=False)
COLUMN_LINK = pa.struct([("from", pa.string()), ("to", pa.string()), ("relationship", pa.string()),
                         ("transformation", pa.string()), ("confidence", pa.string())])


@dataclass(frozen=True, slots=True)
class IndexTable:
    directory: str
    key: str
    supersede: Supersede
    schema: pa.Schema


NODES = IndexTable("parse/nodes", "asset_id", Supersede.LATEST_BY, pa.schema([
    pa.field("asset_id", pa.string(), nullable=False), ("full_name", pa.string()), ("namespace", pa.string()),
    ("name", pa.string()), ("kind", pa.string()), ("owner", pa.string()), ("steward", pa.string()),
    ("certified", pa.bool_()), ("file", pa.string()),
    pa.field("aliases", pa.list_(pa.string()), nullable=False),
    # Added after v1's first files (a missing list reads as empty): each alias's precedence,
    # and what the declarations say of the asset in words.
    pa.field("alias_ranks", pa.list_(pa.int32()), nullable=False),
    pa.field("notes", pa.list_(pa.string()), nullable=False), INGESTED_AT]))

READ_NOTE = pa.struct([("text", pa.string()), pa.field("mentions", pa.list_(pa.string()), nullable=False)])

READS = IndexTable("compile/reads", "asset_id", Supersede.LATEST_BY, pa.schema([
    pa.field("asset_id", pa.string(), nullable=False), ("sql_status", pa.string()), ("sql_read_from", pa.string()),
    # Added after v1's first files: what reading the SQL said of the asset (rollup.ReadNote).
    pa.field("read_notes", pa.list_(READ_NOTE), nullable=False), INGESTED_AT]))

COMPILED_COLUMNS = ("sql_status", "sql_read_from", "read_notes")

MERGED_NODES = IndexTable("lineage/nodes", "asset_id", Supersede.LATEST_BY, pa.schema([
    *[f for f in NODES.schema if f.name != "ingested_at"],
    *[f for f in READS.schema if f.name in COMPILED_COLUMNS], INGESTED_AT]))

EDGES = IndexTable("parse/edges", "target_id", Supersede.LATEST_GROUP, pa.schema([
    pa.field("target_id", pa.string(), nullable=False), ("source_id", pa.string()), ("mark", pa.string()),
    ("via", pa.string()), ("file", pa.string()),
    pa.field("columns", pa.list_(COLUMN_LINK), nullable=False), ("note", pa.string()),
    # Added after v1's first files: the git commit a parsed edge's statement was read at (NULL
    # in older files, as a missing string is).
    ("revision", pa.string()), INGESTED_AT]))

SOURCE_LINK = pa.struct([("asset", pa.string()), *[(f.name, f.type) for f in COLUMN_LINK]])
SEEN_COLUMN = pa.struct([("name", pa.string()), ("type", pa.string())])
DEPENDENCY = pa.struct([
    pa.field("address", pa.list_(pa.string()), nullable=False), ("resolved", pa.string()),
    pa.field("columns_known", pa.bool_(), nullable=False),
    pa.field("columns", pa.list_(SEEN_COLUMN), nullable=False)])

STATEMENTS = IndexTable("compile/statements", "asset_id", Supersede.LATEST_GROUP, pa.schema([
    pa.field("asset_id", pa.string(), nullable=False), ("statement_key", pa.string()), ("status", pa.string()),
    pa.field("reads", pa.list_(pa.string()), nullable=False),
    pa.field("links", pa.list_(SOURCE_LINK), nullable=False),
    pa.field("outputs_known", pa.bool_(), nullable=False),
    pa.field("outputs", pa.list_(pa.string()), nullable=False),
    pa.field("dependencies", pa.list_(DEPENDENCY), nullable=False), INGESTED_AT]))

ALIVE = IndexTable("alive", "asset_id", Supersede.LATEST_GROUP, pa.schema([
    pa.field("asset_id", pa.string(), nullable=False), INGESTED_AT]))

# What the pass that wrote each epoch could do (one row per epoch, LatestBy the environment): the
# parser's state — a pass interrupted, or whose parser could not start, is told to readers by
# its cause (seed 000) — and the revision it read.  An index written before this table existed
# reads as a pass that ran.
PASSES = IndexTable("sync/passes", "environment", Supersede.LATEST_BY, pa.schema([
    pa.field("environment", pa.string(), nullable=False), ("parser", pa.string()), ("revision", pa.string()),
    INGESTED_AT]))

TABLES = (NODES, READS, MERGED_NODES, EDGES, STATEMENTS, PASSES, ALIVE)
