"""The explorer in a browser, on a generated warehouse: first paint and API answer times.

    python -m benchmarks.explorer_bench [--assets 100000] [--workdir DIR] [--samples 10] [--json PATH]

Generates the warehouse of ``governance_bench`` (``--assets`` tables and views, layered with
fan-in and fan-out), writes it as a native project and syncs it into an index under
``--workdir`` (both kept there, so a second run re-uses them), serves it with
``prism-lineage serve`` and drives headless chromium with the browser tests' harness
(tests/browser/browser_helpers.py):

* **API answer times**, measured in the page (``fetch`` from the explorer's origin, timed with
  ``performance.now()``, the body read): ``/api/v1/lineage`` at depths 1, 2 and 10 (both
  directions) and ``/api/v1/impact`` over assets sampled from every layer; median, p90, worst;
* **first paint of a 100-asset graph**: an answer cut at 100 assets, opened by address in a
  fresh page; from the navigation's start to the graph drawn (the page's ``lineage-drawn``
  mark: the script and ELK loaded, the API answered, the layout computed, the SVG in the
  document), with the API's share and the layout's share; median of ``--samples`` loads; and
  how long the page's main thread was blocked before it (the Long Tasks API: the sum of tasks
  over 50 ms, and the longest — the time the page could not answer a key or a scroll).

The machine's load average is recorded with the figures: the machines these run on are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]


def prepare(total: int, workdir: Path, seed: int) -> tuple[Path, Path, dict]:
    """The generated project and its synced index (re-used when already there)."""
    from benchmarks.governance_bench import generate, write_native
    from prism_lineage.control.sync import sync

    project = workdir / f"warehouse-{total}"
    index = workdir / f"index-{total}"
    figures: dict = {}
    if not (project / "project.yaml").exists():
        started = time.perf_counter()
        write_native(generate(total, seed), project)
        figures["write_project_s"] = round(time.perf_counter() - started, 1)
    if not any(index.glob("*/*/current.sqlite3")):
        started = time.perf_counter()
        summary = sync(project, index, jobs=os.cpu_count() or 1)
        figures["sync_s"] = round(time.perf_counter() - started, 1)
        figures["sync"] = summary.line()
    return project, index, figures


def sample_assets(index: Path, per_layer: int, seed: int) -> tuple[list[str], str | None]:
    """Assets of every layer, and one whose depth-10 answer is cut at 100 (for first paint)."""
    from prism_lineage.control.reading import StoreReader

    root = next(index.glob("*/*/current.sqlite3")).parent
    rng = random.Random(seed)
    with StoreReader(root) as reader:
        names = sorted(n for (n,) in reader.connection.execute("SELECT full_name FROM assets"))
        layers: dict[str, list[str]] = {}
        for name in names:
            layers.setdefault(name.split(".")[0], []).append(name)
        chosen = [n for layer in sorted(layers) for n in rng.sample(layers[layer], min(per_layer, len(layers[layer])))]
        owner = reader.viewer(None)
        cut = None
        for name in sorted(layers.get("report", [])) + sorted(layers.get("raw", [])):
            for direction in ("upstream", "downstream"):
                if reader.explore(owner, name, direction, 10).cut:
                    cut = (name, direction)
                    break
            if cut:
                break
    return chosen, cut


def _stats(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"n": len(values), "median_ms": round(statistics.median(ordered), 1),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 1), "max_ms": round(ordered[-1], 1)}


# Long tasks (over 50 ms) of the page's main thread that began before the graph was drawn: their
# total and the longest, in ms (buffered entries; none within 1.5 s means there were none).
LONG_TASKS = """() => new Promise((resolve) => {
  const drawnAt = performance.getEntriesByName('lineage-drawn')[0].startTime;
  const done = (entries) => { const before = entries.filter((e) => e.startTime < drawnAt);
    resolve([before.reduce((s, e) => s + e.duration, 0), Math.max(0, ...before.map((e) => e.duration))]); };
  new PerformanceObserver((list) => done(list.getEntries())).observe({ type: 'longtask', buffered: true });
  setTimeout(() => done([]), 1500);
})"""

TIMED_FETCH = """async (u) => { const t0 = performance.now(); const r = await fetch(u); const body = await r.text();
  return [performance.now() - t0, r.status, body.length]; }"""


def measure(project: Path, index: Path, per_layer: int, samples: int, seed: int) -> dict:
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    from browser_helpers import Server, drawn, launch, start_playwright

    assets, cut = sample_assets(index, per_layer, seed)
    server = Server("--index", str(index), "--project", str(project), "--poll", "3600")
    playwright = start_playwright()
    browser = launch(playwright)
    figures: dict = {"sampled_assets": len(assets)}
    try:
        page = browser.new_page(viewport={"width": 1500, "height": 940})
        page.goto(f"{server.url}/explorer")
        drawn(page)
        for name, path, params in [("lineage_depth_1", "lineage", {"direction": "both", "depth": 1}),
                                   ("lineage_depth_2", "lineage", {"direction": "both", "depth": 2}),
                                   ("lineage_depth_10", "lineage", {"direction": "both", "depth": 10}),
                                   ("impact", "impact", {})]:
            times = []
            for asset in assets:
                url = f"{server.url}/api/v1/{path}?" + urlencode({"asset": asset, **params})
                elapsed, status, _ = page.evaluate(TIMED_FETCH, url)
                assert status == 200, (url, status)
                times.append(elapsed)
            figures[name] = _stats(times)
        page.close()
        if cut is not None:
            asset, direction = cut
            address = f"{server.url}/explorer?" + urlencode({"asset": asset, "direction": direction, "depth": 10})
            paints, api_parts, layouts, blocked, longest = [], [], [], [], []
            for _ in range(samples):
                page = browser.new_page(viewport={"width": 1500, "height": 940})
                page.goto(address)
                drawn(page, timeout=120_000)
                marks = page.evaluate("""() => { const m = n => performance.getEntriesByName(n)[0]?.startTime;
                    return [m('lineage-asked'), m('lineage-answered'), m('lineage-drawn'),
                            document.querySelectorAll('#lineage-graph g.node').length,
                            document.querySelector('#holds').innerText]; }""")
                asked, answered, painted, nodes, holds = marks
                assert nodes == 100 and holds == "cut, holds 100", (nodes, holds)
                paints.append(painted)
                api_parts.append(answered - asked)
                layouts.append(painted - answered)
                total, worst = page.evaluate(LONG_TASKS)
                blocked.append(total)
                longest.append(worst)
                page.close()
            figures["first_paint_100_assets"] = {"asset": asset, "direction": direction, "depth": 10,
                                                 "navigation_to_drawn": _stats(paints),
                                                 "api_share": _stats(api_parts), "layout_and_draw_share": _stats(layouts),
                                                 "main_thread_long_tasks_before_drawn": _stats(blocked),
                                                 "longest_main_thread_task": _stats(longest)}
    finally:
        browser.close()
        playwright.stop()
        server.stop()
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/prism-explorer-bench"))
    parser.add_argument("--per-layer", type=int, default=10, help="assets sampled per layer (default 10)")
    parser.add_argument("--samples", type=int, default=5, help="page loads for first paint (default 5)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    project, index, prepared = prepare(args.assets, args.workdir, args.seed)
    load_measuring = os.getloadavg()
    figures = {"assets": args.assets, **prepared, **measure(project, index, args.per_layer, args.samples, args.seed),
               "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "load_average_before": [round(x, 2) for x in load_before],
                           "load_average_measuring": [round(x, 2) for x in load_measuring],
                           "load_average_after": [round(x, 2) for x in os.getloadavg()]}}
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
