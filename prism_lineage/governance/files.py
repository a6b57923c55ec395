"""Reading a project's files, which nobody vouches for.

A project directory is input like any other: a file in it can be a link to a file outside it, a
FIFO that blocks the first read forever, a link to ``/dev/zero``, a gigabyte of YAML, a document
nested ten thousand levels deep, or one that says the same key twice.  Every file of a project
is read here, so each of these is refused once, the same way, naming the file and never echoing
what a file outside the project holds:

* only a **regular file under the project root**, after links are resolved (a link to another
  file of the project is followed; one leading out of it is refused); directory links are not
  followed when the declarations are searched;
* at most ``max_bytes`` (``PRISM_LINEAGE_MAX_FILE_BYTES``, default 8 MiB, for YAML; a dbt
  manifest or catalog ``PRISM_LINEAGE_MAX_MANIFEST_BYTES``, default 512 MiB);
* YAML with duplicate keys is refused naming both lines; a document nesting deeper than
  ``MAX_NESTING`` levels is refused (JSON is decoded with the interpreter's recursion bounded,
  so depth is an error, never a crash).
"""

from __future__ import annotations

import fnmatch
import json
import operator
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import yaml

from ..terminal import printable
from .errors import ProjectError

MAX_FILE_BYTES_VARIABLE = "PRISM_LINEAGE_MAX_FILE_BYTES"
MAX_MANIFEST_BYTES_VARIABLE = "PRISM_LINEAGE_MAX_MANIFEST_BYTES"
DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024
DEFAULT_MAX_MANIFEST_BYTES = 512 * 1024 * 1024
MAX_NESTING = 200  # levels of lists and mappings a document may nest (a declaration needs < 10)
_JSON_RECURSION = 1_000  # frames json's decoder may use above the caller's

# libyaml's safe loader where PyYAML was built with it: a project of 10,000 files loads five
# times faster than with the pure-Python one (1.2 s against 6 s), and reads the same documents.
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def max_file_bytes() -> int:
    return _limit(MAX_FILE_BYTES_VARIABLE, DEFAULT_MAX_FILE_BYTES)


def max_manifest_bytes() -> int:
    return _limit(MAX_MANIFEST_BYTES_VARIABLE, DEFAULT_MAX_MANIFEST_BYTES)


def _limit(variable: str, default: int) -> int:
    value = os.environ.get(variable)
    if value is None or value == "":
        return default
    try:
        found = int(value)
    except ValueError:
        found = -1
    if found <= 0:
        from ..errors import UsageError

        raise UsageError(f"{variable} must be a positive number of bytes, got '{printable(value)}'")
    return found


def inside(root: Path, relative: str) -> Path:
    """``root/relative``, refused unless ``relative`` is a relative path that stays under
    ``root`` once links are resolved."""
    return Path(_inside(root, relative))


def _inside(root: Path, relative: str) -> str:
    """``inside``, as a string (``read_text`` opens it: no ``Path`` made per file read)."""
    if not relative or relative.startswith("/") or ".." in relative.split("/") or "\x00" in relative:
        raise ProjectError(f"{printable(relative)}: not a path inside the project")
    base = _real_root(root)
    resolved = _resolved_under(base, relative)
    if resolved is None:
        resolved = os.path.realpath(os.path.join(root, relative))
    if resolved != base and not resolved.startswith(base.rstrip(os.sep) + os.sep):
        raise ProjectError(f"{printable(relative)} leads outside the project: refused")
    return resolved


# The real path of each project root being read, while ``one_reading`` is in force: a project of
# 100,000 files otherwise resolves its root's path (a ``stat`` per component) once per file.
_ROOTS: ContextVar[dict | None] = ContextVar("prism_lineage_project_roots", default=None)


@contextmanager
def one_reading() -> Iterator[None]:
    """Every file read inside this block resolves the project root's real path once (a loader
    reading a project's files; the root is not expected to move while it is read)."""
    token = _ROOTS.set({})
    try:
        yield
    finally:
        _ROOTS.reset(token)


def _real_root(root: Path) -> str:
    cache = _ROOTS.get()
    if cache is None:
        return os.path.realpath(root)
    key = os.fspath(root)
    found = cache.get(key)
    if found is None:
        found = cache[key] = os.path.realpath(root)
    return found


def _resolved_under(base: str, relative: str) -> str | None:
    """``base/relative`` when no component of ``relative`` is a link (``base`` being real, that
    is its real path, found with one ``lstat`` per component of ``relative`` instead of one per
    component of the whole path); None when one is a link or is missing (``os.path.realpath``
    then decides, as it always did)."""
    current = base
    for part in relative.split("/"):
        if part in ("", "."):
            continue
        current = os.path.join(current, part)
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return None
        if stat.S_ISLNK(mode):
            return None
    return current


def read_text(root: Path, relative: str, *, max_bytes: int | None = None) -> str:
    """The text of the regular file ``root/relative`` (UTF-8), within the size limit."""
    limit = max_file_bytes() if max_bytes is None else max_bytes
    resolved = _inside(root, relative)
    try:
        # Non-blocking, so that opening a FIFO returns at once instead of waiting for a writer;
        # the last component was resolved above, so it is not followed again.
        descriptor = os.open(resolved, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise ProjectError(f"{printable(relative)} not found") from None
    except OSError as error:
        raise ProjectError(f"cannot read {printable(relative)}: {printable(error.strerror or str(error))}") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise ProjectError(f"{printable(relative)} is not a regular file ({_kind(status.st_mode)}): refused")
        if status.st_size > limit:
            raise ProjectError(f"{printable(relative)} is larger than {limit:,} bytes ({status.st_size:,}): refused "
                               f"(the limit is {_variable(limit, max_bytes)})")
        chunks = []
        remaining = limit + 1
        # The size the file says it has first (one read, no megabyte buffer for a small file).
        size = status.st_size + 1
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, size))
            size = 1 << 20
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:  # grew while it was read
            raise ProjectError(f"{printable(relative)} is larger than {limit:,} bytes: refused")
    except OSError as error:
        raise ProjectError(f"cannot read {printable(relative)}: {printable(error.strerror or str(error))}") from None
    finally:
        os.close(descriptor)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProjectError(f"{printable(relative)} is not UTF-8 text (byte {error.start + 1})") from None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a file"


def _variable(limit: int, given: int | None) -> str:
    if given is None:
        return f"{MAX_FILE_BYTES_VARIABLE}={limit}"
    return f"{limit:,} bytes"


def declaration_files(root: Path, directory: str, pattern: str = "*.y*ml") -> list[str]:
    """The files under ``root/directory`` whose names match ``pattern``, relative to ``root``, in
    path order.  Links to directories are not followed (a project's tree is searched, never
    what a link points to); a link to a file is listed, and ``read_text`` refuses it if it
    leads outside the project.  The directory itself must be inside the project."""
    top = root / directory
    if not top.is_dir():
        return []
    inside(root, directory)
    # Paths as strings (``os.walk`` gives each directory as ``top`` joined with what is below
    # it): a ``Path`` made and made relative per file was most of listing 100,000 files.  The
    # same relative POSIX paths as ``(Path(current) / name).relative_to(root).as_posix()``.
    start = os.fspath(top)
    relative_top = top.relative_to(root).as_posix()
    matches = re.compile(fnmatch.translate(pattern)).match
    found = []
    for current, directories, files in os.walk(start, followlinks=False):
        directories.sort()
        below = current[len(start):].replace(os.sep, "/")  # "" or "/a/b"
        prefix = (relative_top + below + "/") if relative_top != "." else (below[1:] + "/" if below else "")
        found.extend(prefix + name for name in files if matches(name))
    return sorted(found)


# --- YAML and JSON ------------------------------------------------------------------------------


class _DuplicateKey(Exception):
    def __init__(self, key: Any, first: int, second: int):
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


class _Loader(_BASE_LOADER):  # type: ignore[misc,valid-type]
    """The safe loader, refusing a mapping that says one key twice (YAML's own rule; PyYAML
    keeps the last one silently, so ``access.yaml`` could grant what its first entry denies)."""

    def construct_mapping(self, node, deep=False):  # noqa: D401 - PyYAML's hook
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:
                    continue  # unhashable: SafeConstructor refuses it with its own message
                line = key_node.start_mark.line + 1
                if first is not None:
                    raise _DuplicateKey(key, first, line)
                seen[key] = line
        return super().construct_mapping(node, deep=deep)

    def resolve(self, kind, value, implicit):  # noqa: D401 - PyYAML's hook, called per scalar
        # ``BaseResolver.resolve`` with the implicit resolvers grouped by first character once
        # (it concatenates two lists per scalar); the same tags (no path resolvers here).
        if not self.yaml_path_resolvers:
            if kind is yaml.ScalarNode:
                if implicit[0]:
                    # A plain scalar's tag depends on its text only: a project repeats the same
                    # words (keys, owners, namespaces), each resolved once.
                    tag = _RESOLVED.get(value)
                    if tag is not None:
                        return tag
                    tag = self.DEFAULT_SCALAR_TAG
                    for found, pattern in _IMPLICIT.get(value[:1], _WILDCARD):
                        if pattern.match(value):
                            tag = found
                            break
                    if len(value) <= 64 and len(_RESOLVED) < _RESOLVED_LIMIT:  # not a query's text
                        _RESOLVED[value] = tag
                    return tag
                return self.DEFAULT_SCALAR_TAG
            if kind is yaml.MappingNode:  # BaseResolver's answers without path resolvers
                return self.DEFAULT_MAPPING_TAG
            if kind is yaml.SequenceNode:
                return self.DEFAULT_SEQUENCE_TAG
        return super().resolve(kind, value, implicit)


class _PlainLoader(_Loader):
    """``_Loader`` for ``_plain_document``: the composer tells the resolver of every node it
    enters and leaves (``descend_resolver``/``ascend_resolver``, two Python calls per node) only
    for path resolvers, which this loader never has (``_plain_document`` leaves a loader with
    any to PyYAML's own path).  Both are C callables that do nothing here: the composer ignores
    what they return."""

    descend_resolver = operator.is_  # called as (parent, index)
    ascend_resolver = tuple  # called with no argument


_RESOLVED: dict[str, str] = {}  # a short plain scalar's text -> its tag (``_Loader.resolve``)
_RESOLVED_LIMIT = 50_000
_WILDCARD = tuple(_Loader.yaml_implicit_resolvers.get(None, ()))
_IMPLICIT = {first: (*found, *_WILDCARD) for first, found in _Loader.yaml_implicit_resolvers.items()
             if first is not None}


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"


class _Unusual(Exception):
    """Something ``_plain_document`` leaves to PyYAML's own constructor."""


def _plain_document(text: str) -> Any:
    """The document of ``text`` as ``yaml.load(text, Loader=_Loader)`` makes it, built from
    libyaml's node tree directly; ``_Unusual`` for anything but plain mappings, sequences and
    scalars with distinct hashable keys (tags, merge keys, a repeated key, a recursive alias)
    nesting at most ``MAX_NESTING`` levels: the caller then loads it with ``_Loader``, whose
    result — or error — is the reference.

    PyYAML's constructor is Python: a generator per mapping, a call per node through
    ``construct_object``'s bookkeeping, every key constructed twice by the duplicate check — most of
    the time of loading a project of 100,000 small files.  Strings, the most common scalar, are
    the node's own value; other scalars (numbers, booleans, null, dates) go through PyYAML's own
    constructors, so they are what it makes of them."""
    return _plain(text)[0]


def _plain(text: str) -> tuple[Any, bool]:
    """``_plain_document``, and whether its nesting is checked: every list and mapping was built
    at its own depth, within ``MAX_NESTING`` — unless one was met again through an alias (it may
    then stand deeper there), which ``check_nesting`` must still walk."""
    loader = _PlainLoader(text)
    try:
        if loader.yaml_path_resolvers:
            raise _Unusual  # someone added path resolvers to PyYAML's classes: its own path
        node = loader.get_single_node()
        if node is None:
            return None, True
        built: dict[int, Any] = {}
        document = _built(node, built, set(), loader.construct_object, 1)
        return document, _ALIASED not in built
    finally:
        loader.dispose()


_ALIASED = 0  # a key of ``_built``'s ``built`` (never an object's id): a list or mapping was met twice


def _built(node, built: dict[int, Any], building: set[int], construct, depth: int) -> Any:
    """``node``'s value (see ``_plain_document``), ``node`` being at ``depth`` (the document's
    top is at 1, as ``check_nesting`` counts).  A plain recursive function, not a closure: a
    closure calling itself is a reference cycle holding the document's whole node tree, which a
    sync (the cyclic collector paused) would keep to its end."""
    kind = node.__class__
    if kind is yaml.ScalarNode:
        if node.tag == _STR:
            return node.value
        return construct(node, deep=True)
    key = id(node)
    found = built.get(key)
    if found is not None:
        built[_ALIASED] = True
        return found
    if key in building:
        raise _Unusual  # an alias of a node that holds it
    if depth > MAX_NESTING:
        raise _Unusual  # ``_Loader``'s document, refused by ``check_nesting``
    building.add(key)
    depth += 1
    if kind is yaml.MappingNode:
        if node.tag != _MAP:
            raise _Unusual
        value: Any = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Unusual
            name = _built(key_node, built, building, construct, depth)
            if name.__class__ is not str:
                try:
                    hash(name)
                except TypeError:
                    raise _Unusual from None
            if name in value:
                raise _Unusual  # said twice: ``_Loader`` names both lines
            value[name] = _built(value_node, built, building, construct, depth)
    elif kind is yaml.SequenceNode and node.tag == _SEQ:
        value = [_built(item, built, building, construct, depth) for item in node.value]
    else:
        raise _Unusual
    building.discard(key)
    built[key] = value
    return value


def load_yaml(root: Path, relative: str) -> Any:
    """The YAML document of a project file (refused: not valid YAML, a duplicate key, nesting
    beyond ``MAX_NESTING``)."""
    return load_yaml_text(root, relative)[1]


def load_yaml_text(root: Path, relative: str) -> tuple[str, Any]:
    """``load_yaml``, with the text the document was read from."""
    text = read_text(root, relative)
    shown = printable(relative)
    try:
        with _bounded_recursion():
            try:
                document, checked = _plain(text)
            except Exception:  # noqa: BLE001 - anything unusual, an error included: PyYAML's own
                # constructor decides, so the document or the refusal is exactly what it says.
                document, checked = yaml.load(text, Loader=_Loader), False  # noqa: S506 - a safe loader
    except _DuplicateKey as duplicate:
        raise ProjectError(f"{shown}: key '{printable(str(duplicate.key))}' is given twice, at lines "
                           f"{duplicate.first} and {duplicate.second}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ProjectError(f"{shown} is not valid YAML{where}: {printable(problem)}") from None
    except RecursionError:
        raise ProjectError(f"{shown} nests more deeply than {MAX_NESTING} levels: refused") from None
    if not checked:  # a document ``_plain`` built is within the bound, unless it re-used a part
        check_nesting(document, relative)
    return text, document


def yaml_line(root: Path, relative: str, path: tuple) -> int | None:
    """The line of the deepest key (or list item) of ``path`` found in a project YAML file, for a
    message naming where a value is wrong; None where the file cannot be read again or the path
    is not in it.  Only on the error path: the file is composed again (no object is built)."""
    try:
        text = read_text(root, relative)
        with _bounded_recursion():
            node = yaml.compose(text, Loader=_BASE_LOADER)
    except (ProjectError, yaml.YAMLError, RecursionError):
        return None
    line = None
    for part in path:
        if isinstance(node, yaml.MappingNode):
            found = next((value for key, value in node.value
                          if isinstance(key, yaml.ScalarNode) and key.value == str(part)), None)
            if found is None:
                break
            line = next(key.start_mark.line + 1 for key, value in node.value if value is found)
            node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def located(root: Path | None, relative: str, path: tuple = ()) -> str:
    """``file`` or ``file, line N``: where a refusal points in a project YAML file."""
    line = yaml_line(root, relative, path) if root is not None and path else None
    return printable(relative) + (f", line {line}" if line is not None else "")


def load_json(root: Path, relative: str, *, max_bytes: int | None = None) -> Any:
    """The JSON document of a project file (a dbt manifest or catalog)."""
    text = read_text(root, relative, max_bytes=max_manifest_bytes() if max_bytes is None else max_bytes)
    shown = printable(relative)
    try:
        with _bounded_recursion():
            document = json.loads(text)
    except RecursionError:
        raise ProjectError(f"{shown} nests more deeply than {MAX_NESTING} levels: refused") from None
    except json.JSONDecodeError as error:
        raise ProjectError(f"cannot read {shown} as JSON: {printable(error.msg)} (line {error.lineno}, "
                           f"column {error.colno})") from None
    check_nesting(document, relative)
    return document


def check_nesting(document: Any, relative: str, limit: int = MAX_NESTING) -> None:
    """Refuses a document whose lists and mappings nest deeper than ``limit`` (iteratively, so
    the check itself cannot overflow)."""
    stack = [(document, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        value, depth = pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise ProjectError(f"{printable(relative)} nests more deeply than {limit} levels: refused")
        depth += 1
        for child in children:  # a loop, not a generator per container: every file is checked
            if isinstance(child, (dict, list)):
                push((child, depth))


@contextmanager
def _bounded_recursion() -> Iterator[None]:
    """Run with the recursion limit at most ``_JSON_RECURSION`` frames above the caller's, so a
    decoder that recurses per level of nesting raises ``RecursionError`` long before the C stack
    is exhausted (the engine raises the limit for deep SQL; a document must not profit)."""
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(min(before, depth + _JSON_RECURSION))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)
