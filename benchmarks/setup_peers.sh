#!/usr/bin/env bash
# Installs the lineage peers the benchmarks compare against, each where it can live:
#   * openlineage-sql (Rust wheel, no dependencies): into the project's .venv (the `bench` extra);
#   * DataHub's sqlglot_lineage (acryl-datahub[sql-parser]): its own venv, it pins another sqlglot;
#   * sqllineage (sqlfluff, sqlalchemy, rustworkx …): its own venv, to keep them out of ours.
# The venvs go under $PRISM_BENCH_VENVS, else ../venvs beside the repository (where the runner
# looks for them).  Run from anywhere:   bash benchmarks/setup_peers.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENVS="${PRISM_BENCH_VENVS:-$(dirname "$ROOT")/venvs}"
PYTHON="${PYTHON:-python3}"

mkdir -p "$VENVS"
if [ -x "$ROOT/.venv/bin/python" ]; then
    "$ROOT/.venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[test,bench]"
fi

peer() {  # peer NAME REQUIREMENT
    local name="$1" requirement="$2"
    if [ ! -x "$VENVS/$name/bin/python" ]; then
        "$PYTHON" -m venv "$VENVS/$name"
    fi
    "$VENVS/$name/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement"
    echo "$name: $("$VENVS/$name/bin/python" -m pip show "${requirement%%[[=]*}" 2>/dev/null | sed -n 's/^Version: //p') in $VENVS/$name"
}

peer datahub "acryl-datahub[sql-parser]"
peer sqllineage "sqllineage==1.5.9"
