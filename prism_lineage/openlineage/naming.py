"""Which asset an OpenLineage dataset is: the namespace/name mapping of an environment.

By default a dataset whose name is an asset's full name (``namespace.name``), in any OpenLineage
namespace, is that asset.  A mapping file says otherwise per environment, as an ordered list of
rules; the first rule that gives a declared asset wins (docs/openlineage.md#naming)::

    prod:
      - namespace: "snowflake://acme-prod"   # a namespace, or a glob (default "*": any)
        drop_parts: 1                        # drop the first N dotted parts (the database)
        case: insensitive                    # Snowflake spells names in upper case
      - namespace: "s3://acme-lake"
        name: "/warehouse/orders"            # this one dataset …
        asset: "raw.orders"                  # … is this asset
    dev:
      - namespace: "postgres://dev-db:5432"
        prefix: "shop."                      # removed from the start of the name

An environment the file does not name keeps the default rule; one it names has exactly its rules
(so prod can be told apart from dev when both declare the same names).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError

_RULE_KEYS = {"namespace", "drop_parts", "prefix", "case", "name", "asset"}


@dataclass(frozen=True, slots=True)
class Rule:
    namespace: str = "*"
    drop_parts: int = 0
    prefix: str | None = None
    case_insensitive: bool = False
    name: str | None = None  # an explicit dataset name (with ``asset``)
    asset: str | None = None

    def candidate(self, namespace: str, name: str) -> str | None:
        """The full name this rule makes of a dataset (None: the rule does not apply)."""
        if not fnmatch.fnmatchcase(namespace, self.namespace):
            return None
        if self.name is not None:
            return self.asset if name == self.name else None
        if self.prefix is not None:
            if not name.startswith(self.prefix):
                return None
            name = name[len(self.prefix):]
        if self.drop_parts:
            parts = name.split(".")
            if len(parts) <= self.drop_parts:
                return None
            name = ".".join(parts[self.drop_parts:])
        return name


DEFAULT_RULES = (Rule(),)


class DatasetMapping:
    """One environment's rules over its declared assets (full name → asset id)."""

    def __init__(self, assets: Mapping[str, str], rules: Iterable[Rule] = DEFAULT_RULES):
        self.assets = dict(assets)
        self.rules = tuple(rules)
        self._folded = {name.casefold(): identifier for name, identifier in self.assets.items()}
        self._cache: dict[tuple[str, str], str | None] = {}

    def asset(self, namespace: str, name: str) -> str | None:
        """The id of the asset the dataset is, or None (not declared: no edge, not counted)."""
        key = (namespace, name)
        if key in self._cache:
            return self._cache[key]
        found = None
        for rule in self.rules:
            candidate = rule.candidate(namespace, name)
            if candidate is None:
                continue
            found = self._folded.get(candidate.casefold()) if rule.case_insensitive else self.assets.get(candidate)
            if found is not None:
                break
        if len(self._cache) < 100_000:
            self._cache[key] = found
        return found


def load_mapping(path: str | Path | None, environment: str) -> tuple[Rule, ...]:
    """The rules of ``environment`` in the mapping file (YAML or JSON); the default rule when
    there is no file or it does not name the environment.  A malformed file is an InputError
    naming the entry."""
    if path is None:
        return DEFAULT_RULES
    import yaml

    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"mapping file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read mapping file {path}: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise InputError(f"mapping file {path} is not valid YAML or JSON{where}") from None
    if document is None:
        return DEFAULT_RULES
    if not isinstance(document, dict):
        raise InputError(f"mapping file {path}: expected environments as keys, each with a list of rules")
    entries = document.get(environment)
    if entries is None:
        return DEFAULT_RULES
    return rules_from(entries, f"{path}: {environment}")


def rules_from(entries: Any, where: str) -> tuple[Rule, ...]:
    if not isinstance(entries, list) or not entries:
        raise InputError(f"mapping {where}: expected a non-empty list of rules")
    rules = []
    for number, entry in enumerate(entries, 1):
        at = f"mapping {where}, rule {number}"
        if not isinstance(entry, dict):
            raise InputError(f"{at}: expected a mapping of {', '.join(sorted(_RULE_KEYS))}")
        unknown = set(entry) - _RULE_KEYS
        if unknown:
            raise InputError(f"{at}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(_RULE_KEYS))})")
        namespace = entry.get("namespace", "*")
        drop = entry.get("drop_parts", 0)
        case = entry.get("case", "sensitive")
        if not isinstance(namespace, str) or not namespace:
            raise InputError(f"{at}: namespace must be a non-empty string")
        if not isinstance(drop, int) or isinstance(drop, bool) or drop < 0:
            raise InputError(f"{at}: drop_parts must be a whole number, 0 or more")
        if case not in ("sensitive", "insensitive"):
            raise InputError(f"{at}: case must be 'sensitive' or 'insensitive', not {case!r}")
        for key in ("prefix", "name", "asset"):
            if key in entry and not isinstance(entry[key], str):
                raise InputError(f"{at}: {key} must be a string")
        if ("name" in entry) != ("asset" in entry):
            raise InputError(f"{at}: name and asset go together (this dataset is that asset)")
        rules.append(Rule(namespace, drop, entry.get("prefix"), case == "insensitive", entry.get("name"),
                          entry.get("asset")))
    return tuple(rules)
