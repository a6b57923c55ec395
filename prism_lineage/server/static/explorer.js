/* The lineage explorer's pages: the explorer, an asset's record, a change set.
 *
 * Everything drawn comes from the server's JSON answers (/api/v1/…), which are the CLI's
 * `-o json` answers for this page's credential: the page never filters, hides or guesses —
 * what it may not show was never sent.  Every word an answer carries ("cut, holds N", "Some
 * lineage is not visible to you.", "not computed", the SQL statuses, "at least") is shown as the
 * answer says it.  Text is always set with textContent, never parsed as HTML.
 *
 * The graph is laid out by ELK's layered (Sugiyama) algorithm, in a web worker, left to right: upstream assets
 * stand left of the asset asked about, downstream ones right of it.  It is one tab stop; the
 * arrow keys move between assets, Enter shows the impact of the one in focus, Escape clears it.
 */
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const FONT = '13px "DejaVu Sans", "Liberation Sans", Arial, sans-serif';
  const FONT_BOLD = 'bold 13px "DejaVu Sans", "Liberation Sans", Arial, sans-serif';
  const SMALL = '11px "DejaVu Sans", "Liberation Sans", Arial, sans-serif';
  const LINE_HEIGHT = 17;
  const PAD = 8;
  const DASH = { solid: null, dashed: "8 5", dotted: "2 4" };
  const DIRECTIONS = ["upstream", "downstream", "both"];
  const INDIRECT_WORDS = {
    filter: "filters which rows are kept",
    join: "decides which rows are joined",
    grouping: "groups the rows",
    sort: "orders the rows",
    window: "partitions or orders a window",
    limit: "decides how many rows are kept",
    policy: "a policy reads it",
    quality: "a quality check reads it",
  };

  // --- small helpers ---------------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key === "text") node.textContent = value;
      else node.setAttribute(key, String(value));
    }
    return node;
  }

  async function api(path) {
    const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (response.status === 401 && document.body.dataset.page !== "login") {
      location.assign("/login?next=" + encodeURIComponent(location.pathname + location.search));
      return new Promise(() => {});
    }
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      body = { error: { code: "unreadable_answer", message: "The server's answer could not be read." } };
    }
    return { ok: response.ok, status: response.status, body };
  }

  function recordHref(name) {
    return "/assets/" + encodeURIComponent(name).replace(/%2F/g, "/");
  }

  function explorerHref(asset, direction, depth) {
    const params = new URLSearchParams();
    params.set("asset", asset);
    params.set("direction", direction);
    params.set("depth", String(depth));
    return "/explorer?" + params.toString();
  }

  let measureContext = null;
  function textWidth(text, font) {
    if (!measureContext) measureContext = document.createElement("canvas").getContext("2d");
    measureContext.font = font;
    return measureContext.measureText(text).width;
  }

  /** Replaces a node's children, leaving out the parts that do not apply (null). */
  function fill(node, ...children) {
    node.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
  }

  function refusalBox(body) {
    const error = (body && body.error) || { code: "refused", message: "Refused." };
    return el("p", { className: "refusal", role: "alert", "data-code": error.code, text: error.message });
  }

  function howKnown(edge) {
    const whose = edge.via === "view" ? "the view's" : "the pipeline's";
    if (edge.mark === "declared") return `declared by ${whose} declaration`;
    if (edge.mark === "parsed") return `parsed from ${whose} SQL`;
    if (edge.mark === "observed") {
      const source = edge.via === "query log" ? "the query log" : "a run";
      const when = edge.seen_at ? ` at ${edge.seen_at}` : "";
      const run = edge.run_id ? ` (run ${edge.run_id})` : "";
      return `observed in ${source}${when}${run}`;
    }
    return edge.mark;
  }

  function stewardship(asset) {
    return [
      "owner " + (asset.owner || "-"),
      "steward " + (asset.steward || "-"),
      asset.certified ? "certified" : "not certified",
    ].join(" · ");
  }

  function plural(count, word) {
    return `${count} ${word}${count === 1 ? "" : "s"}`;
  }

  // --- the answer, drawn -------------------------------------------------------------------------

  /** Draws an explorer answer into `root`; returns a controller (focus, impact, list). */
  function LineageView(root, answer, options) {
    options = options || {};
    root.replaceChildren();
    const view = { root, answer, positions: new Map(), order: [], current: null };
    root.append(
      el("p", { className: "summary", id: "answer-summary",
        text: `lineage of ${answer.asset} in ${answer.project}/${answer.environment} (${answer.environment_status})` }),
      el("p", { className: "applied", id: "answer-applied",
        text: `direction ${answer.direction}, depth ${answer.depth} (as applied)` }),
      legend(answer),
    );
    if (answer.environment_status !== "computed") {
      // Never an empty graph: an environment not worked out says so in words.
      const box = el("div", { className: "not-computed", role: "status", id: "not-computed" },
        el("p", { className: "status-word", text: `Lineage of ${answer.project}/${answer.environment} is ${answer.environment_status}.` }));
      for (const note of answer.notes) box.append(el("p", { text: note }));
      if (answer.marks && answer.marks.parsed) {
        box.append(el("p", { text: `parsed: ${answer.marks.parsed}` }));
      }
      root.append(box);
      document.body.dataset.state = "not-computed";
      return Promise.resolve(view);
    }
    root.append(el("p", { className: "holds", id: "holds", text: answer.cut ? `cut, holds ${answer.holds}` : `holds ${answer.holds}` }));
    if (answer.notes.length) {
      const notes = el("ul", { className: "notes", id: "answer-notes", "aria-label": "Notes" });
      for (const note of answer.notes) notes.append(el("li", { text: note }));
      root.append(notes);
    }
    const listButton = el("button", { type: "button", id: "show-list", "aria-pressed": "false", text: "Show as list" });
    const toolbar = el("div", { className: "toolbar" }, listButton,
      el("span", { className: "hint", text: "Graph: Tab to it, arrow keys move between assets, Enter shows impact, Escape clears it." }));
    const graphBox = el("div", { className: "graph-scroll", id: "graph-box" });
    const listBox = el("div", { className: "list", id: "list-box", hidden: true });
    const side = el("div", { className: "side" });
    const focusPanel = el("section", { className: "panel", id: "focus-panel", "aria-label": "Asset in focus" });
    const impactPanel = el("section", { className: "panel", id: "impact-panel", "aria-live": "polite", "aria-label": "Impact" });
    const edgePanel = el("section", { className: "panel", id: "edge-panel", "aria-live": "polite", "aria-label": "Edge" });
    side.append(focusPanel, impactPanel, edgePanel);
    root.append(toolbar, el("div", { className: "workspace" }, el("div", { className: "drawing" }, graphBox, listBox), side));
    view.impactPanel = impactPanel;
    view.edgePanel = edgePanel;
    view.focusPanel = focusPanel;
    view.options = options;
    listBox.append(edgeList(view), assetList(answer));
    listButton.addEventListener("click", () => {
      const showing = listButton.getAttribute("aria-pressed") === "true";
      listButton.setAttribute("aria-pressed", showing ? "false" : "true");
      listButton.textContent = showing ? "Show as list" : "Show as graph";
      listBox.hidden = showing;
      graphBox.hidden = !showing;
    });
    return drawGraph(view, graphBox).then(() => view);
  }

  function legend(answer) {
    const box = el("ul", { className: "legend", id: "legend", "aria-label": "Legend: how each edge is known" });
    const entries = answer.legend || Object.entries(answer.marks || {}).map(([mark, status]) => ({ mark, line: "", status }));
    if (!entries.length) {
      box.append(el("li", { text: "marks: not reported" }));
      return box;
    }
    for (const entry of entries) {
      const sample = svg("svg", { width: 44, height: 10, "aria-hidden": "true", class: "sample" });
      sample.append(svg("line", { x1: 2, y1: 5, x2: 42, y2: 5, class: "edge-line", "stroke-dasharray": DASH[entry.line] }));
      box.append(el("li", { "data-mark": entry.mark }, sample,
        el("span", { className: "mark", text: entry.mark }),
        el("span", { className: "line-word", text: entry.line ? ` (${entry.line} line): ` : ": " }),
        el("span", { className: "status", text: entry.status })));
    }
    return box;
  }

  // Edge labels are not given to ELK: placing them multiplies the layout's time (1.2-2.2 s
  // against 70 ms for 100 assets and 140 edges, measured in chromium); each mark's word is
  // written on its edge's longest segment instead, between lines spaced to hold it.
  const LAYOUT = {
    "elk.algorithm": "layered",
    "elk.direction": "RIGHT",
    "elk.edgeRouting": "ORTHOGONAL",
    "elk.layered.spacing.nodeNodeBetweenLayers": "90",
    "elk.layered.spacing.edgeNodeBetweenLayers": "16",
    "elk.layered.spacing.edgeEdgeBetweenLayers": "14",
    "elk.spacing.nodeNode": "22",
    "elk.spacing.edgeEdge": "14",
    "elk.padding": "[top=16,left=16,bottom=16,right=16]",
  };
  const ELK_WORKER = "/static/vendor/elkjs/elk-worker.min.js";
  let engine = null;
  let engineFailed = null;  // rejects when the worker cannot run (its script did not load, or it broke)

  /** ELK, running in a web worker (elkjs's elk-worker.min.js, driven through elk-api.js): the
   *  1.6 MB layout code is loaded and compiled off the page's thread, and a layout never blocks
   *  it.  Started as soon as a page will draw, and warmed with a three-box layout, so the worker's
   *  loading and the layered algorithm's first (cold) run happen while the answer is on its way;
   *  the worker serves every layout of the page in turn. */
  function layoutEngine() {
    if (engine === null) {
      let fail;
      engineFailed = new Promise((_, reject) => { fail = reject; });
      engineFailed.catch(() => {});
      engine = new ELK({
        workerUrl: ELK_WORKER,
        // elk-api does not listen for a worker's errors: without this a failed worker would leave
        // the page waiting for a layout that never comes.
        workerFactory: (url) => {
          const worker = new Worker(url);
          worker.addEventListener("error", (event) => fail(new Error(event.message || "the layout worker could not start")));
          return worker;
        },
      });
      // Warmed with three boxes: measured, a larger warm-up only delays the real layout behind it.
      engine.layout({
        id: "warm", layoutOptions: LAYOUT,
        children: [{ id: "a", width: 40, height: 20 }, { id: "b", width: 40, height: 20 }, { id: "c", width: 40, height: 20 }],
        edges: [{ id: "ab", sources: ["a"], targets: ["b"] }, { id: "ac", sources: ["a"], targets: ["c"] },
          { id: "bc", sources: ["b"], targets: ["c"] }],
      }).catch(() => {});  // a warm-up: the real layout reports any failure
    }
    return engine;
  }

  /** ELK's layout of ``graph``, or the reason there is none. */
  function layOut(graph) {
    const running = layoutEngine();
    return Promise.race([running.layout(graph), engineFailed]);
  }

  function nodeLines(asset) {
    const lines = [{ text: asset.name, font: FONT_BOLD, cls: "name" }];
    const facts = [asset.kind, asset.certified ? "certified" : null, `hop ${asset.distance}`].filter(Boolean);
    lines.push({ text: facts.join(" · "), font: SMALL, cls: "facts" });
    if (asset.sql_status) lines.push({ text: `${asset.sql_status}: reads at least what is drawn`, font: SMALL, cls: "sql-status" });
    if (asset.note) lines.push({ text: asset.note, font: SMALL, cls: "cut-note" });
    // An asset's own notes (declarations, reads) are long sentences: shown in the panel beside the
    // graph and on the record, not in the box, which stays narrow enough for 100 assets.
    return lines;
  }

  async function drawGraph(view, box) {
    const answer = view.answer;
    const nodes = answer.assets.map((asset) => {
      const lines = nodeLines(asset);
      const width = Math.ceil(Math.max(...lines.map((l) => textWidth(l.text, l.font)))) + 2 * PAD + 4;
      return { asset, lines, width, height: lines.length * LINE_HEIGHT + 2 * PAD };
    });
    const byId = new Map(nodes.map((n) => [n.asset.id, n]));
    const graph = {
      id: "root",
      layoutOptions: LAYOUT,
      children: nodes.map((n) => ({ id: n.asset.id, width: n.width, height: n.height })),
      edges: answer.edges
        .map((edge, index) => ({ edge, index }))
        .filter(({ edge }) => byId.has(edge.from) && byId.has(edge.to))
        .map(({ edge, index }) => ({ id: "e" + index, sources: [edge.from], targets: [edge.to] })),
    };
    let laid;
    try {
      laid = await layOut(graph);
    } catch (error) {
      // No drawing without a layout (the worker could not start, or ELK failed): say so, and show
      // the list, which holds every edge and asset of the answer.
      box.replaceChildren(el("p", { className: "refusal", role: "alert", id: "layout-failed",
        text: `The graph could not be laid out here (${(error && error.message) || error}); the list below holds every edge and asset.` }));
      const listBox = view.root.querySelector("#list-box");
      if (listBox) listBox.hidden = false;
      document.body.dataset.state = "drawn-as-list";
      return;
    }
    const width = Math.ceil(laid.width || 200);
    const height = Math.ceil(laid.height || 100);
    const drawing = svg("svg", {
      id: "lineage-graph", class: "graph", width, height, viewBox: `0 0 ${width} ${height}`,
      tabindex: 0, role: "application", focusable: "true",
      "aria-roledescription": "lineage graph",
      "aria-label": `Lineage graph of ${answer.asset}: ${plural(answer.assets.length, "asset")} and ${plural(answer.edges.length, "edge")}. Arrow keys move between assets, Enter shows the impact of the asset in focus, Escape clears it.`,
    });
    const defs = svg("defs");
    const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }));
    defs.append(marker);
    drawing.append(defs);
    const edgeLayer = svg("g", { class: "edges" });
    const nodeLayer = svg("g", { class: "nodes" });
    drawing.append(edgeLayer, nodeLayer);

    for (const laidEdge of laid.edges || []) {
      const index = Number(laidEdge.id.slice(1));
      const edge = answer.edges[index];
      const points = [];
      for (const section of laidEdge.sections || []) {
        points.push(section.startPoint, ...(section.bendPoints || []), section.endPoint);
      }
      if (!points.length) continue;
      const d = points.map((p, i) => `${i ? "L" : "M"} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(" ");
      const group = svg("g", {
        class: `edge mark-${edge.mark}`, "data-index": index, "data-from": edge.from, "data-to": edge.to,
        "data-from-name": edge.from_name, "data-to-name": edge.to_name, "data-mark": edge.mark, "data-line": edge.line,
      });
      const words = `${edge.mark} edge (${edge.line} line): ${edge.from_name} → ${edge.to_name}, ${howKnown(edge)} in ${edge.file}`;
      group.append(svg("title", { text: words }));
      group.append(svg("path", { d, class: "edge-hit" }));
      group.append(svg("path", { d, class: "edge-line", "stroke-dasharray": DASH[edge.line], "marker-end": "url(#arrow)" }));
      const spot = labelSpot(points);
      const labelWidth = Math.ceil(textWidth(edge.mark, SMALL)) + 4;
      group.append(svg("rect", { x: spot.x - labelWidth / 2, y: spot.y - 11, width: labelWidth, height: 12, class: "edge-label-bg" }));
      group.append(svg("text", { x: spot.x, y: spot.y - 2, class: "edge-label", "text-anchor": "middle", text: edge.mark }));
      group.addEventListener("click", () => showEdge(view, edge));
      edgeLayer.append(group);
    }

    for (const child of laid.children || []) {
      const node = byId.get(child.id);
      const asset = node.asset;
      const domId = "node-" + asset.id;
      const group = svg("g", {
        id: domId, class: "node" + (asset.distance === 0 ? " asked" : "") + (asset.note ? " next-to-cut" : ""),
        transform: `translate(${child.x.toFixed(1)} ${child.y.toFixed(1)})`,
        "data-id": asset.id, "data-name": asset.name, role: "img",
        "aria-label": [asset.name, asset.kind, asset.certified ? "certified" : "not certified", `hop ${asset.distance}`,
          asset.sql_status, asset.note].filter(Boolean).join(", "),
      });
      group.append(svg("title", { text: `${asset.name} (${asset.kind}) — ${stewardship(asset)}` }));
      group.append(svg("rect", { width: child.width, height: child.height, rx: 5, class: "box" }));
      node.lines.forEach((line, i) => {
        group.append(svg("text", { x: PAD + 2, y: PAD + (i + 1) * LINE_HEIGHT - 4, class: line.cls, text: line.text }));
      });
      group.addEventListener("click", () => { setFocus(view, asset.id); drawing.focus({ preventScroll: true }); });
      nodeLayer.append(group);
      view.positions.set(asset.id, { left: child.x, right: child.x + child.width, x: child.x + child.width / 2,
        y: child.y + child.height / 2, asset });
      view.order.push(asset.id);
    }

    drawing.addEventListener("keydown", (event) => onGraphKey(view, event));
    drawing.addEventListener("focus", () => { if (view.current === null && view.order.length) setFocus(view, askedId(view)); });
    box.replaceChildren(drawing);
    view.svg = drawing;
    setFocus(view, askedId(view), { quiet: true });
    performance.mark("lineage-drawn");
    document.body.dataset.state = "drawn";
  }

  /** Where an edge's word goes: just above the middle of its longest horizontal segment (or,
   *  when it has none, beside the middle of its longest segment). */
  function labelSpot(points) {
    let best = null;
    let bestLength = -1;
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1];
      const b = points[i];
      const horizontal = Math.abs(a.y - b.y) < 0.5;
      const length = Math.hypot(b.x - a.x, b.y - a.y) + (horizontal ? 1e6 : 0);
      if (length > bestLength) { bestLength = length; best = [a, b, horizontal]; }
    }
    const [a, b, horizontal] = best;
    const x = (a.x + b.x) / 2;
    const y = (a.y + b.y) / 2;
    return horizontal ? { x, y } : { x: x + 20, y: y + 6 };
  }

  function askedId(view) {
    const asked = view.answer.assets.find((a) => a.distance === 0);
    return asked ? asked.id : view.order[0];
  }

  function setFocus(view, id, opts) {
    if (!view.positions.has(id)) return;
    if (view.current) {
      const old = document.getElementById("node-" + view.current);
      if (old) old.classList.remove("focused");
    }
    view.current = id;
    const node = document.getElementById("node-" + id);
    node.classList.add("focused");
    view.svg.setAttribute("aria-activedescendant", "node-" + id);
    view.svg.dataset.focused = view.positions.get(id).asset.name;
    if (!(opts && opts.quiet)) node.scrollIntoView({ block: "nearest", inline: "nearest" });
    renderFocusPanel(view, view.positions.get(id).asset);
  }

  function onGraphKey(view, event) {
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (event.key in moves) {
      event.preventDefault();
      const next = neighbour(view, moves[event.key]);
      if (next) setFocus(view, next);
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (view.current) showImpact(view, view.positions.get(view.current).asset.name);
    } else if (event.key === "Escape") {
      event.preventDefault();
      clearImpact(view);
    } else if (event.key === "Home") {
      event.preventDefault();
      setFocus(view, askedId(view));
    }
  }

  /** The asset nearest in the arrow's direction: along it first, across it weighed three times.
   *  Left and right step to another layer (ELK's layers never overlap across the page: an asset
   *  is to the right when it starts after this one ends); up and down stay near the column. */
  function neighbour(view, [dx, dy]) {
    const here = view.positions.get(view.current);
    let best = null;
    let bestCost = Infinity;
    for (const [id, there] of view.positions) {
      if (id === view.current) continue;
      let along;
      let across;
      if (dx > 0) { along = there.left - here.right; across = Math.abs(there.y - here.y); }
      else if (dx < 0) { along = here.left - there.right; across = Math.abs(there.y - here.y); }
      else { along = (there.y - here.y) * dy; across = Math.abs(there.x - here.x); }
      if (along < (dx ? 0 : 1)) continue;
      const cost = along + 3 * across;
      if (cost < bestCost || (cost === bestCost && there.asset.name < best.asset.name)) {
        bestCost = cost;
        best = there;
      }
    }
    return best ? best.asset.id : null;
  }

  function renderFocusPanel(view, asset) {
    const panel = view.focusPanel;
    const direction = view.answer.direction;
    const depth = view.answer.depth;
    fill(panel,
      el("h2", {}, el("a", { href: recordHref(asset.name), text: asset.name })),
      el("p", { className: "facts", text: `${asset.kind} · hop ${asset.distance}` }),
      el("p", { text: stewardship(asset) }),
      asset.sql_status ? el("p", { className: "sql-status", text: `${asset.sql_status}: reads at least what is drawn` }) : null,
      asset.sql_read_from ? el("p", { text: `SQL read from ${asset.sql_read_from}` }) : null,
      asset.note ? el("p", { className: "cut-note", text: asset.note }) : null,
      ...(asset.notes || []).map((note) => el("p", { className: "asset-note", text: note })),
      el("p", {},
        el("button", { type: "button", className: "impact-button", onclick: () => showImpact(view, asset.name), text: "Impact" }),
        " ",
        asset.distance === 0 ? null : el("a", { href: explorerHref(asset.name, direction, depth), text: "Explore from here" })),
    );
  }

  // --- impact ----------------------------------------------------------------------------------------

  async function showImpact(view, name) {
    const panel = view.impactPanel;
    panel.replaceChildren(el("p", { className: "loading", text: `Reading the impact of ${name}…` }));
    const { ok, body } = await api("/api/v1/impact?asset=" + encodeURIComponent(name));
    if (view.impactPanel !== panel || !panel.isConnected) return;
    if (!ok) {
      panel.replaceChildren(el("h2", { text: `Impact of ${name}` }), refusalBox(body));
      return;
    }
    panel.replaceChildren(...impactContent(body));
    panel.dataset.asset = body.asset;
    panel.scrollIntoView({ block: "nearest" });
  }

  function impactContent(answer) {
    const out = [el("h2", { id: "impact-heading", text: `Impact of ${answer.asset}` })];
    if (answer.environment_status !== "computed") {
      out.push(el("p", { className: "status-word", text: `Lineage of ${answer.project}/${answer.environment} is ${answer.environment_status}.` }));
      for (const note of answer.notes) out.push(el("p", { text: note }));
      return out;
    }
    const count = answer.at_least ? `at least ${answer.count}` : String(answer.count);
    const noun = answer.count === 1 && !answer.at_least ? "asset" : "assets";
    out.push(el("p", { className: "impact-count", id: "impact-count", text: `${count} ${noun} downstream` }));
    out.push(el("p", { className: "hint", text: "Every asset downstream, at any depth: the depth drawn does not limit it." }));
    const kinds = [...new Set(answer.assets.map((a) => a.kind))];
    for (const kind of kinds) {
      const rows = answer.assets.filter((a) => a.kind === kind);
      const table = el("table", { className: "impact-table", "data-kind": kind },
        el("caption", { text: `${kind}s (${answer.by_kind[kind]})` }),
        el("thead", {}, el("tr", {}, ...["Asset", "Owner", "Steward", "Certified", "SQL"].map((h) => el("th", { scope: "col", text: h })))));
      const tbody = el("tbody");
      for (const asset of rows) {
        tbody.append(el("tr", { "data-name": asset.name },
          el("td", {}, el("a", { href: recordHref(asset.name), text: asset.name })),
          el("td", { text: asset.owner || "-" }),
          el("td", { text: asset.steward || "-" }),
          el("td", { text: asset.certified ? "certified" : "not certified" }),
          el("td", { text: asset.sql_status || "" })));
      }
      table.append(tbody);
      out.push(table);
    }
    if (answer.notes.length) {
      const notes = el("ul", { className: "notes" });
      for (const note of answer.notes) notes.append(el("li", { text: note }));
      out.push(notes);
    }
    out.push(el("p", { className: "hint", text: "Escape clears it." }));
    return out;
  }

  function clearImpact(view) {
    view.impactPanel.replaceChildren();
    delete view.impactPanel.dataset.asset;
    view.edgePanel.replaceChildren();
  }

  // --- the list: every edge, one row per edge and mark -------------------------------------------------

  function edgeList(view) {
    const answer = view.answer;
    const table = el("table", { className: "edge-list", id: "edge-list" },
      el("caption", { text: `${plural(answer.edges.length, "edge")}, one row per edge and mark` }),
      el("thead", {}, el("tr", {}, ...["From", "To", "How known", "Line", "File", "Commit", "Note", "Columns"]
        .map((h) => el("th", { scope: "col", text: h })))));
    const tbody = el("tbody");
    answer.edges.forEach((edge, index) => {
      tbody.append(el("tr", { "data-index": index, "data-from": edge.from, "data-to": edge.to, "data-mark": edge.mark },
        el("td", {}, el("a", { href: recordHref(edge.from_name), text: edge.from_name })),
        el("td", {}, el("a", { href: recordHref(edge.to_name), text: edge.to_name })),
        el("td", { className: "how", text: howKnown(edge) }),
        el("td", { text: edge.line }),
        el("td", { className: "file", text: edge.file }),
        el("td", { className: "commit", text: edge.revision || "" }),
        el("td", { text: edge.note || "" }),
        el("td", {}, edge.columns === null ? el("span", { className: "hint", text: "not traced" })
          : el("button", { type: "button", className: "columns-button", onclick: () => showEdge(view, edge),
            text: edge.columns.length ? `${plural(edge.columns.length, "link")}` : "none traced" }))));
    });
    if (!answer.edges.length) tbody.append(el("tr", {}, el("td", { colspan: 8, text: "none" })));
    table.append(tbody);
    return table;
  }

  function assetList(answer) {
    const table = el("table", { className: "asset-list", id: "asset-list" },
      el("caption", { text: `${plural(answer.assets.length, "asset")} (${answer.cut ? `cut, holds ${answer.holds}` : `holds ${answer.holds}`})` }),
      el("thead", {}, el("tr", {}, ...["Asset", "Kind", "Hop", "Owner", "Steward", "Certified", "SQL", "Note"]
        .map((h) => el("th", { scope: "col", text: h })))));
    const tbody = el("tbody");
    for (const asset of answer.assets) {
      tbody.append(el("tr", { "data-id": asset.id },
        el("td", {}, el("a", { href: recordHref(asset.name), text: asset.name })),
        el("td", { text: asset.kind }),
        el("td", { text: String(asset.distance) }),
        el("td", { text: asset.owner || "-" }),
        el("td", { text: asset.steward || "-" }),
        el("td", { text: asset.certified ? "certified" : "not certified" }),
        el("td", { text: asset.sql_status ? `${asset.sql_status}: reads at least what is drawn` : "" }),
        el("td", { text: asset.note || "" })));
    }
    table.append(tbody);
    return table;
  }

  // --- column detail of an edge ----------------------------------------------------------------------

  function showEdge(view, edge) {
    view.edgePanel.replaceChildren(...edgeContent(edge));
    view.edgePanel.scrollIntoView({ block: "nearest" });
  }

  function edgeContent(edge) {
    const out = [el("h2", { id: "edge-heading", text: `${edge.from_name} → ${edge.to_name}` })];
    const at = edge.revision ? ` at ${edge.revision}` : "";
    out.push(el("p", { className: "how", text: `${edge.mark} (${edge.line} line): ${howKnown(edge)} in ${edge.file}${edge.mark === "parsed" ? at : ""}` }));
    if (edge.columns === null) {
      // No column detail: a declaration names tables only; a run may report no column lineage.
      out.push(el("p", { text: edge.mark === "observed" ? "The run reported no column lineage for this edge."
        : "A declared edge traces no column." }));
      if (edge.note) out.push(el("p", { className: "note", text: edge.note }));
      return out;
    }
    if (!edge.columns.length) {
      out.push(el("p", { className: "note", text: edge.note || "No column is traced for this edge." }));
      return out;
    }
    // Value lineage first: for each column of the fed asset, the columns its value comes from.
    const value = edge.columns.filter((c) => c.relationship === "value");
    const indirect = edge.columns.filter((c) => c.relationship !== "value");
    if (value.length) {
      const table = el("table", { className: "value-columns", id: "value-columns" },
        el("caption", { text: `Values: which column of ${edge.from_name} each column of ${edge.to_name} comes from` }),
        el("thead", {}, el("tr", {}, ...[`${edge.to_name}`, "comes from", "how", "confidence"].map((h) => el("th", { scope: "col", text: h })))));
      const tbody = el("tbody");
      const targets = [...new Set(value.map((c) => c.to))];
      for (const target of targets) {
        for (const link of value.filter((c) => c.to === target)) {
          tbody.append(el("tr", {},
            el("td", { text: target }), el("td", { text: link.from }),
            el("td", { text: link.transformation }),
            el("td", { className: "confidence-" + link.confidence, text: link.confidence })));
        }
      }
      table.append(tbody);
      out.push(table);
    } else {
      out.push(el("p", { text: `No column of ${edge.to_name} takes its value from ${edge.from_name}.` }));
    }
    if (indirect.length) {
      // The indirect kinds, summarised per source column: what the column is used for, and which
      // columns of the fed asset that affects.
      const table = el("table", { className: "indirect-columns", id: "indirect-columns" },
        el("caption", { text: `Also used (indirectly): columns of ${edge.from_name} that decide which rows reach ${edge.to_name}, or how they are grouped` }),
        el("thead", {}, el("tr", {}, ...[`${edge.from_name}`, "used for", "affects"].map((h) => el("th", { scope: "col", text: h })))));
      const tbody = el("tbody");
      const sources = [...new Set(indirect.map((c) => c.from))];
      for (const source of sources) {
        const links = indirect.filter((c) => c.from === source);
        const kinds = [...new Set(links.map((c) => c.relationship))];
        const affected = [...new Set(links.map((c) => c.to))];
        const unsure = [...new Set(links.map((c) => c.confidence).filter((c) => c !== "exact"))];
        tbody.append(el("tr", {},
          el("td", { text: source }),
          el("td", { text: kinds.map((k) => `${k} (${INDIRECT_WORDS[k] || k})`).join("; ") + (unsure.length ? ` — ${unsure.join(", ")}` : "") }),
          el("td", { text: affected.join(", ") })));
      }
      table.append(tbody);
      out.push(table);
    }
    return out;
  }

  // --- the explorer page ---------------------------------------------------------------------------

  function readAddress() {
    const params = new URLSearchParams(location.search);
    return { asset: params.get("asset"), direction: params.get("direction"), depth: params.get("depth") };
  }

  function explorerPage() {
    const form = document.getElementById("explorer-form");
    const input = document.getElementById("asset-input");
    const depthInput = document.getElementById("depth-input");
    const target = document.getElementById("lineage-view");
    const search = SearchBox(input, document.getElementById("asset-results"), (name) => {
      input.value = name;
      submit();
    });

    function syncControls(address) {
      input.value = address.asset || "";
      const direction = DIRECTIONS.includes(address.direction) ? address.direction : "both";
      for (const radio of form.elements.direction) radio.checked = radio.value === direction;
      depthInput.value = address.depth === null ? "2" : address.depth;
    }

    function submit() {
      const asset = input.value.trim();
      if (!asset) return;
      search.close();
      const direction = form.elements.direction.value || "both";
      const depth = depthInput.value.trim() || "2";
      const params = new URLSearchParams();
      params.set("asset", asset);
      params.set("direction", direction);
      params.set("depth", depth);
      const address = "/explorer?" + params.toString();
      if (location.pathname + location.search !== address) history.pushState(null, "", address);
      render();
    }

    form.addEventListener("submit", (event) => { event.preventDefault(); submit(); });
    window.addEventListener("popstate", render);
    window.addEventListener("prism:synced", () => { if (readAddress().asset) render(); });

    let generation = 0;
    async function render() {
      const address = readAddress();
      syncControls(address);
      const mine = ++generation;
      if (!address.asset) {
        // No asset in the address: no call is made; the page asks to choose one.
        target.replaceChildren(el("div", { className: "choose", id: "choose" },
          el("h2", { text: "Choose an asset" }),
          el("p", { text: "Search by name over the tables and views you may see, above." })));
        document.body.dataset.state = "choose";
        return;
      }
      document.body.dataset.state = "loading";
      const params = new URLSearchParams();
      params.set("asset", address.asset);
      if (address.direction !== null) params.set("direction", address.direction);
      if (address.depth !== null) params.set("depth", address.depth);
      performance.clearMarks("lineage-asked");
      performance.mark("lineage-asked");
      layoutEngine();  // the layout worker starts while the answer is on its way
      const { ok, body } = await api("/api/v1/lineage?" + params.toString());
      if (mine !== generation) return;
      performance.mark("lineage-answered");
      if (!ok) {
        target.replaceChildren(refusalBox(body));
        document.body.dataset.state = "refused";
        return;
      }
      await LineageView(target, body, {});
    }
    render();
  }

  /** A combobox over /api/v1/assets: the tables and views the credential may see. */
  function SearchBox(input, list, choose) {
    let timer = null;
    let active = -1;
    let asked = 0;
    function close() {
      list.hidden = true;
      list.replaceChildren();
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    }
    function options() { return [...list.querySelectorAll("[role=option]")]; }
    function mark(index) {
      const all = options();
      all.forEach((o, i) => o.setAttribute("aria-selected", i === index ? "true" : "false"));
      active = index;
      if (all[index]) input.setAttribute("aria-activedescendant", all[index].id);
    }
    async function lookup() {
      const text = input.value.trim();
      if (!text) { close(); return; }
      const mine = ++asked;
      const { ok, body } = await api("/api/v1/assets?q=" + encodeURIComponent(text));
      if (mine !== asked) return;
      list.replaceChildren();
      if (!ok) {
        list.append(el("li", { role: "option", "aria-disabled": "true", text: body.error.message }));
      } else if (!body.choose.length) {
        list.append(el("li", { className: "empty", text: "No table or view you may see matches." }));
      } else {
        body.choose.forEach((found, i) => {
          list.append(el("li", { role: "option", id: "found-" + i, "data-name": found.name, "aria-selected": "false",
            onmousedown: (event) => { event.preventDefault(); choose(found.name); } },
          el("span", { className: "name", text: found.name }), " ", el("span", { className: "kind", text: found.kind })));
        });
      }
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      active = -1;
    }
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(lookup, 120); });
    input.addEventListener("keydown", (event) => {
      const all = options();
      if (event.key === "ArrowDown" && all.length) { event.preventDefault(); mark(Math.min(active + 1, all.length - 1)); }
      else if (event.key === "ArrowUp" && all.length) { event.preventDefault(); mark(Math.max(active - 1, 0)); }
      else if (event.key === "Enter" && active >= 0 && all[active]) { event.preventDefault(); choose(all[active].dataset.name); }
      else if (event.key === "Escape") { close(); }
    });
    input.addEventListener("blur", () => setTimeout(close, 150));
    return { close };
  }

  // --- an asset's record ----------------------------------------------------------------------------

  function assetPage() {
    const holder = document.getElementById("one-hop-answer");
    if (!holder) return;
    const answer = JSON.parse(holder.textContent);
    const overview = document.getElementById("panel-overview");
    const lineage = document.getElementById("panel-lineage");
    renderOverview(overview, answer);
    const tabs = [document.getElementById("tab-overview"), document.getElementById("tab-lineage")];
    const panels = [overview, lineage];
    let drawn = false;
    function select(index) {
      tabs.forEach((tab, i) => {
        tab.setAttribute("aria-selected", i === index ? "true" : "false");
        tab.tabIndex = i === index ? 0 : -1;
        panels[i].hidden = i !== index;
      });
      if (index === 1 && !drawn) {
        drawn = true;
        lineageTab(lineage, answer.asset);
      }
    }
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => select(i));
      tab.addEventListener("keydown", (event) => {
        if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
          event.preventDefault();
          const next = (i + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length;
          select(next);
          tabs[next].focus();
        }
      });
    });
    if (location.hash === "#lineage") select(1);
    document.body.dataset.state = "drawn";
  }

  function renderOverview(panel, answer) {
    const asked = answer.assets.find((a) => a.distance === 0);
    panel.replaceChildren();
    if (answer.environment_status !== "computed" || !asked) {
      panel.append(el("p", { className: "status-word", id: "not-computed", text: `Lineage of ${answer.project}/${answer.environment} is ${answer.environment_status}.` }));
      for (const note of answer.notes) panel.append(el("p", { text: note }));
      return;
    }
    const facts = el("dl", { className: "facts-list", id: "asset-facts" });
    const add = (term, value) => { if (value !== null && value !== undefined) facts.append(el("dt", { text: term }), el("dd", { text: value })); };
    add("Kind", asked.kind);
    add("Owner", asked.owner || "-");
    add("Steward", asked.steward || "-");
    add("Certified", asked.certified ? "certified" : "not certified");
    if (asked.sql_status) add("SQL", `${asked.sql_status}: reads at least what is drawn`);
    if (asked.sql_read_from) add("SQL read from", asked.sql_read_from);
    if (asked.note) add("Note", asked.note);
    for (const note of asked.notes || []) add("Note", note);
    panel.append(facts);
    panel.append(el("h2", { text: "One hop" }), legend(answer));
    const upstream = answer.edges.filter((e) => e.to === asked.id);
    const downstream = answer.edges.filter((e) => e.from === asked.id && e.to !== asked.id);
    for (const [title, rows, side, direction] of [["Upstream: feeds this asset", upstream, "from", "upstream"],
      ["Downstream: fed by this asset", downstream, "to", "downstream"]]) {
      const table = el("table", { className: "one-hop", "data-direction": direction },
        el("caption", {}, `${title} (${plural(rows.length, "row")}, one per edge and mark) `,
          el("a", { href: explorerHref(asked.name, direction, 1), text: "open in the explorer" })),
        el("thead", {}, el("tr", {}, ...["Asset", "How known", "Line", "File", "Commit", "Note"].map((h) => el("th", { scope: "col", text: h })))));
      const tbody = el("tbody");
      for (const edge of rows) {
        const name = side === "from" ? edge.from_name : edge.to_name;
        tbody.append(el("tr", { "data-mark": edge.mark, "data-name": name },
          el("td", {}, el("a", { href: recordHref(name), text: name })),
          el("td", { text: howKnown(edge) }), el("td", { text: edge.line }), el("td", { text: edge.file }),
          el("td", { text: edge.revision || "" }), el("td", { text: edge.note || "" })));
      }
      if (!rows.length) tbody.append(el("tr", {}, el("td", { colspan: 6, text: "none" })));
      table.append(tbody);
      panel.append(table);
    }
    if (answer.notes.length) {
      const notes = el("ul", { className: "notes" });
      for (const note of answer.notes) notes.append(el("li", { text: note }));
      panel.append(notes);
    }
    panel.append(el("p", {}, el("a", { href: explorerHref(asked.name, "both", 2), id: "open-explorer", text: "Open in the explorer" })));
  }

  async function lineageTab(panel, name) {
    panel.replaceChildren(el("p", {}, el("a", { href: explorerHref(name, "both", 2), text: "Open in the explorer (both directions, depth 2)" })));
    const target = el("div", { id: "lineage-view" });
    panel.append(target);
    layoutEngine();
    const { ok, body } = await api("/api/v1/lineage?" + new URLSearchParams({ asset: name, direction: "both", depth: "2" }).toString());
    if (!ok) { target.replaceChildren(refusalBox(body)); return; }
    await LineageView(target, body, {});
  }

  // --- a change set ------------------------------------------------------------------------------------

  function changesPage() {
    const form = document.getElementById("changes-form");
    const target = document.getElementById("changes-view");
    const params = new URLSearchParams(location.search);
    const base = params.get("base");
    const state = params.get("state") || "proposed";
    form.elements.base.value = base || "";
    form.elements.state.value = state;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const next = new URLSearchParams();
      next.set("base", form.elements.base.value.trim());
      next.set("state", form.elements.state.value);
      location.assign("/changes?" + next.toString());
    });
    if (!base) {
      target.replaceChildren(el("p", { id: "choose", text: "Name the base: the git revision the environment stands at. The change is what the checkout brings over it." }));
      document.body.dataset.state = "choose";
      return;
    }
    target.replaceChildren(el("p", { className: "loading", text: "Reading the change…" }));
    api("/api/v1/review?" + new URLSearchParams({ base, state }).toString()).then(({ ok, body }) => {
      if (!ok) { target.replaceChildren(refusalBox(body)); document.body.dataset.state = "refused"; return; }
      target.replaceChildren(...reviewContent(body));
      document.body.dataset.state = "drawn";
    });
  }

  function reviewContent(answer) {
    const out = [el("p", { className: "summary", text: `review of a change (${answer.state}), read in environment ${answer.environment}` })];
    if (answer.environments_held_for_review.length) {
      out.push(el("p", { text: `held for review until a person approves the move: ${answer.environments_held_for_review.join(", ")}` }));
    }
    out.push(el("p", { className: "verdict", id: "verdict", text: answer.waits_for_approval ? "waits for approval" : (answer.environments_held_for_review.length ? "no change to a certified table waits for approval" : "nothing waits for approval") }));
    if (answer.held.length) {
      const table = el("table", { className: "held", id: "held" }, el("caption", { text: "Changes that wait for approval" }),
        el("thead", {}, el("tr", {}, ...["Table", "File", "Where", "Reason"].map((h) => el("th", { scope: "col", text: h })))));
      const tbody = el("tbody");
      for (const held of answer.held) {
        tbody.append(el("tr", {}, el("td", { text: held.table }), el("td", { text: held.file }),
          el("td", { text: held.environment ? `environment ${held.environment}'s patch` : "the table's own file" }),
          el("td", { text: held.reason })));
      }
      table.append(tbody);
      out.push(table);
    }
    if (answer.environments_not_computed.length) {
      out.push(el("p", { text: `lineage not computed while held: ${answer.environments_not_computed.join(", ")}` }));
    }
    for (const section of answer.impact) {
      const box = el("section", { className: "impact-section", "data-table": section.table });
      const heading = el("h2", {}, "Impact of ", section.explorer_link
        ? el("a", { href: explorerHref(section.table, "downstream", 2), text: section.table }) : section.table);
      box.append(heading);
      if (section.read_in_other_environment) box.append(el("p", { text: `Read in environment ${section.environment}.` }));
      if (section.sentence !== null) {
        box.append(el("p", { className: "sentence", text: section.sentence }));
      } else {
        const count = section.at_least ? `at least ${section.count}` : String(section.count);
        box.append(el("p", { className: "impact-count", text: `${count} ${section.count === 1 && !section.at_least ? "asset" : "assets"} downstream` }));
        const kinds = [...new Set(section.assets.map((a) => a.kind))];
        for (const kind of kinds) {
          const table = el("table", { className: "impact-table" }, el("caption", { text: `${kind}s (${section.by_kind[kind]})` }),
            el("thead", {}, el("tr", {}, ...["Asset", "Owner", "Steward", "Certified"].map((h) => el("th", { scope: "col", text: h })))));
          const tbody = el("tbody");
          for (const asset of section.assets.filter((a) => a.kind === kind)) {
            tbody.append(el("tr", { "data-name": asset.name }, el("td", { text: asset.name }), el("td", { text: asset.owner || "-" }),
              el("td", { text: asset.steward || "-" }), el("td", { text: asset.certified ? "certified" : "not certified" })));
          }
          table.append(tbody);
          box.append(table);
        }
      }
      for (const note of section.notes) box.append(el("p", { className: "note", text: note }));
      out.push(box);
    }
    if (answer.more) out.push(el("p", { id: "more", text: `and ${answer.more} more ${answer.more === 1 ? "table" : "tables"} the change names` }));
    for (const note of answer.notes) out.push(el("p", { className: "note", text: note }));
    return out;
  }

  // --- the sync banner: which sync the answers are as of, and whether one runs -----------------------

  function watchSync() {
    const banner = document.getElementById("sync-banner");
    if (!banner) return;
    let lastEpoch = undefined;
    async function look() {
      let status;
      try {
        const reply = await api("/api/v1/status");
        if (!reply.ok) return;
        status = reply.body;
      } catch (error) {
        return;
      }
      const parts = [];
      if (!status.synced) parts.push("This environment has not been synced yet: its lineage is not computed.");
      if (status.syncing) {
        parts.push(`Syncing revision ${status.revision || "(not in git)"}: until it finishes, answers are as of the last sync` +
          (status.as_of ? ` (epoch ${status.as_of.epoch}, revision ${status.as_of.revision || "none"}).` : "."));
      }
      if (status.last_error) parts.push(status.last_error);
      banner.hidden = !parts.length;
      banner.textContent = parts.join(" ");
      const epoch = status.as_of ? status.as_of.epoch : null;
      if (lastEpoch !== undefined && epoch !== lastEpoch) window.dispatchEvent(new Event("prism:synced"));
      lastEpoch = epoch;
    }
    look();
    setInterval(look, 3000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const page = document.body.dataset.page;
    if (page === "explorer") explorerPage();
    else if (page === "asset") assetPage();
    else if (page === "changes") changesPage();
    if (page !== "login") watchSync();
  });
})();
