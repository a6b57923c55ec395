"""The certified-table review gate for a dbt project: two manifests compared.

The base is the project as it stands (its ``target/manifest.json`` and ``target/catalog.json``
at the base revision), the proposed version the working tree's.  A table is a source, a seed or
a model materialised as anything but a view or ephemeral (``dbt.py``), matched across the two
versions by its ``unique_id`` (a relation several nodes name — a seed and a source declared on
it — by any of theirs), and certified when ``meta.certified`` says so, under any of its names,
in either version.
Its own file is its ``original_file_path`` (a model's ``.sql``, a seed's ``.csv``, the YAML
that declares a source).  A change to a certified table waits when it

* removes, renames or retypes a column — the columns ``catalog.json`` gives when both versions
  have the table in it, else the columns the node's YAML declares in both (never one against
  the other, which would read every column the YAML leaves out as removed; the answer says when
  the catalog is missing from one version);
* removes the table: its file is deleted (``deletes the file``), or its declaration is gone
  from a file that remains (a source taken out of its YAML, a model disabled);
* changes its namespace or name (the schema, or the alias or identifier).

A working tree whose manifest cannot be read cannot tell whether any table is certified: the
change waits, with that reason.
"""

from __future__ import annotations

from pathlib import Path

from .dbt import DbtRelation, is_dbt_project, load_dbt_project, load_relations
from .declarations import Project
from .errors import ProjectError
from .review import HeldChange, breaking_reasons, column_changes

MANIFEST = "target/manifest.json"
CATALOG_NOTE = ("catalog.json is missing from one version for {count} certified table{s}: its columns are "
                "compared as the models' YAML declares them.")


def dbt_review(base_dir: Path, proposed_dir: Path) -> tuple[Project, Project | None, list[HeldChange], list[str]]:
    """Both versions of a dbt project, the changes that wait, and notes on how columns were read."""
    if not is_dbt_project(base_dir):
        raise ProjectError(f"{base_dir} is neither a native project (no project.yaml) nor a dbt project "
                           "(no dbt_project.yml or target/manifest.json)")
    base_project, _ = load_dbt_project(base_dir)
    base = load_relations(base_dir)
    if not is_dbt_project(proposed_dir):
        raise ProjectError(f"{proposed_dir} is not a dbt project (no dbt_project.yml), but its base is")
    try:
        proposed_project, _ = load_dbt_project(proposed_dir)
        proposed = load_relations(proposed_dir)
    except ProjectError:
        reason = "cannot tell whether the tables it declares are certified: the file cannot be read"
        return base_project, None, [HeldChange(table="*", file=MANIFEST, environment=None, reason=reason)], []
    held: list[HeldChange] = []
    uncatalogued = 0
    files = {r.declaration.file for r in proposed.values()}
    proposed_by_uid = {uid: relation for relation in proposed.values() for uid in relation.unique_ids}
    for _, old in sorted(base.items(), key=lambda item: item[1].declaration.full_name):
        new = next((proposed_by_uid[u] for u in old.unique_ids if u in proposed_by_uid), None)
        if old.kind != "table" or not (old.declaration.certified or (new is not None and new.declaration.certified)):
            continue
        table = old.declaration
        if new is None:
            gone = "deletes the file" if table.file not in files else "removes the declaration"
            held.append(HeldChange(table=table.full_name, file=table.file, environment=None,
                                   reason=f"{gone} of a certified table"))
            continue
        both_cataloged = old.cataloged and new.cataloged
        uncatalogued += old.cataloged != new.cataloged
        columns = _columns(old, new, both_cataloged)
        reasons = breaking_reasons(table, new.declaration, columns=columns)
        if reasons:
            held.append(HeldChange(table=table.full_name, file=table.file, environment=None,
                                   reason=f"{'; '.join(reasons)} of a certified table",
                                   columns=list(column_changes(*columns).changed)))
    notes = [CATALOG_NOTE.format(count=uncatalogued, s="s" if uncatalogued != 1 else "")] if uncatalogued else []
    return base_project, proposed_project, held, notes


def _columns(old: DbtRelation, new: DbtRelation, cataloged: bool):
    if cataloged:
        return old.declaration.columns, new.declaration.columns
    return old.declared_columns, new.declared_columns


__all__ = ["dbt_review"]
