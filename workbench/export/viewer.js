// The viewer of an exported page. Every value from the data block reaches the page through
// textContent (the el() helper), never as HTML: session files contain HTML and must stay text.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("workbench-data").textContent);
  var meta = data.meta || {};
  var session = data.session || null;
  var stepper = data.stepper || null;
  var strings = stepper ? stepper.strings : [];
  var codePoints = {}; // string index -> array of code points (spans count code points, as Python does)

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "cls") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function pretty(value) { return JSON.stringify(value, null, 2); }
  function cps(id) { return codePoints[id] || (codePoints[id] = Array.from(strings[id])); }

  var hash = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i > 0) hash[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
  });
  function writeHash() {
    var parts = [];
    Object.keys(hash).forEach(function (k) { if (hash[k] !== undefined && hash[k] !== "") parts.push(k + "=" + encodeURIComponent(hash[k])); });
    history.replaceState(null, "", "#" + parts.join("&"));
  }

  // ---- page frame -------------------------------------------------------------------------------
  var header = el("header", {}, [
    el("h1", { text: meta.title || "TTSR Workbench export" }),
    el("p", { cls: "meta", text: [meta.source, meta.generator, meta.created].filter(Boolean).join(" · ") }),
  ]);
  var tabs = el("nav", { cls: "tabs", role: "tablist" });
  var main = el("main");
  document.body.appendChild(header);
  document.body.appendChild(tabs);
  document.body.appendChild(main);
  var panels = {};
  function addTab(name, label, build) {
    var button = el("button", { type: "button", role: "tab", "data-tab": name, text: label });
    var panel = el("section", { cls: "panel", "data-panel": name });
    button.addEventListener("click", function () { show(name); });
    tabs.appendChild(button);
    main.appendChild(panel);
    panels[name] = { button: button, panel: panel };
    build(panel);
  }
  function show(name) {
    Object.keys(panels).forEach(function (k) {
      var on = k === name;
      panels[k].panel.hidden = !on;
      panels[k].button.setAttribute("aria-selected", on ? "true" : "false");
    });
    hash.tab = name;
    writeHash();
  }

  // ---- tree and entries -------------------------------------------------------------------------
  function buildTree(panel) {
    var mode = hash.filter && session.rows[hash.filter] ? hash.filter : "default";
    var selected = hash.entry || session.leaf;
    var filters = el("div", { cls: "filters" });
    var search = el("input", { type: "search", placeholder: "search rows (ignores case)", "aria-label": "search" });
    search.value = hash.q || "";
    var counter = el("span", { cls: "counter" });
    var list = el("ol", { cls: "rows" });
    var entry = el("pre", { cls: "entry" });
    var extras = el("div", { cls: "extras" });
    var entryTitle = el("h2", { text: "Entry" });
    session.filters.forEach(function (name) {
      var b = el("button", { type: "button", "data-filter": name, text: name });
      b.addEventListener("click", function () { mode = name; hash.filter = name; writeHash(); draw(); });
      filters.appendChild(b);
    });
    search.addEventListener("input", function () { hash.q = search.value; writeHash(); draw(); });
    search.addEventListener("keydown", function (e) { if (e.key === "Escape") { search.value = ""; hash.q = ""; writeHash(); draw(); } });
    function pick(id) {
      selected = id;
      hash.entry = id;
      writeHash();
      var item = session.entries[id];
      entryTitle.textContent = item ? "Entry " + id + " (line " + item.line + ", " + item.type + ")" : "Entry " + id;
      entry.textContent = item ? pretty(item.raw) : "(no record)";
      drawExtras(extras, item, (session.extras || {})[id]);
      Array.prototype.forEach.call(list.children, function (li) { li.classList.toggle("selected", li.getAttribute("data-id") === id); });
    }
    function draw() {
      Array.prototype.forEach.call(filters.children, function (b) { b.setAttribute("aria-pressed", b.getAttribute("data-filter") === mode ? "true" : "false"); });
      var query = search.value.toLowerCase();
      var rows = session.rows[mode] || [];
      clear(list);
      var shown = 0;
      rows.forEach(function (row) {
        if (query && row.line.toLowerCase().indexOf(query) < 0 && (row.label || "").toLowerCase().indexOf(query) < 0) return;
        shown++;
        var li = el("li", { "data-id": row.id, cls: row.active ? "active" : "" }, [el("span", { text: row.line })]);
        if (row.label) li.appendChild(el("span", { cls: "label", text: row.label }));
        li.addEventListener("click", function () { pick(row.id); });
        list.appendChild(li);
      });
      counter.textContent = shown + "/" + rows.length + " shown";
      if (selected) pick(selected);
    }
    var diag = session.diagnostics.length
      ? el("details", { cls: "problems" }, [el("summary", { text: session.diagnostics.length + " problem(s) in the file" })]
        .concat(session.diagnostics.map(function (d) { return el("div", { text: d }); })))
      : null;
    panel.appendChild(el("div", { cls: "split" }, [
      el("div", {}, [filters, el("div", { cls: "searchbar" }, [search, counter]), diag, list]),
      el("div", {}, [entryTitle, extras, entry]),
    ]));
    draw();
  }

  // ---- what an edit did, images (the diff model and the image rule are the workbench's: see
  // edits/diff.py and sessions/images.py; text goes in through textContent, an image only as a data:
  // URI of an allowed type whose base64 is checked here again) -----------------------------------------
  var IMAGE_TYPES = { "image/png": 1, "image/jpeg": 1, "image/gif": 1, "image/webp": 1 };
  var MAX_IMAGE_CHARS = Math.ceil(2 * 1024 * 1024 / 3) * 4 + 4;
  var SIGNS = { added: "+", removed: "-", context: " ", hunk: "" };
  var CHANGES = { edit: "edited", add: "new file", "delete": "deleted", move: "moved", write: "written whole" };
  function diffNode(d) {
    var said = d.callEntry ? "what the call this result answers (entry " + d.callEntry + ") does to the files" : "what the call does to the files";
    var box = el("div", { cls: "diff" }, [el("div", { cls: "muted", text: said + (d.mode ? " · read as " + d.mode : "") })]);
    d.files.forEach(function (f) {
      var head = el("div", { cls: "diff-head" }, [
        el("b", { cls: "diff-path", text: f.path + (f.to ? " → " + f.to : "") }),
        el("span", { cls: "tag", text: CHANGES[f.change] || f.change }),
        el("span", { cls: "plus", text: "+" + f.added }), el("span", { cls: "minus", text: "−" + f.removed }),
      ]);
      var body = el("div", { cls: "diff-body" });
      f.lines.forEach(function (line) {
        body.appendChild(el("div", { cls: "diff-row " + line.kind }, [el("span", { cls: "sign", text: SIGNS[line.kind] || "" }), document.createTextNode(line.text)]));
      });
      box.appendChild(el("div", { cls: "diff-file" }, [head, f.note ? el("div", { cls: "muted note", text: f.note }) : null, body]));
    });
    return box;
  }
  function imageNode(raw, im) {
    if (!im.shown) return el("p", { cls: "muted image-note", text: "[" + im.note + "]" });
    var content = raw && raw.message && raw.message.content;
    var part = content && content[im.block];
    var data = part && typeof part.data === "string" ? part.data.replace(/\s+/g, "") : "";
    var ok = part && IMAGE_TYPES[part.mimeType] && part.mimeType === im.mime && data.length <= MAX_IMAGE_CHARS
      && /^[A-Za-z0-9+\/]+={0,2}$/.test(data);
    if (!ok) return el("p", { cls: "muted image-note", text: "[image not shown: its data in this export is not plain base64]" });
    var img = el("img", { cls: "shot", alt: im.mime + " image, " + im.size + " bytes" });
    img.src = "data:" + im.mime + ";base64," + data;
    return el("div", { cls: "image" }, [img, el("div", { cls: "muted", text: im.mime + " · " + im.size + " bytes" })]);
  }
  function drawExtras(box, item, x) {
    clear(box);
    if (!item || !x) return;
    (x.diffs || []).forEach(function (d) { box.appendChild(diffNode(d)); });
    (x.images || []).forEach(function (im) { box.appendChild(imageNode(item.raw, im)); });
    (x.subagents || []).forEach(function (a) {
      var who = "subagent " + a.id + (a.agent ? " (" + a.agent + ")" : "") + (a.description ? ": " + a.description : "");
      box.appendChild(el("p", { cls: "subagent", text: who + " · " + (a.file ? "its session: " + a.file + " (open it in the workbench; not in this export)" : "its session file was not found") }));
    });
  }

  // ---- stepper ----------------------------------------------------------------------------------
  function buildStepper(panel) {
    var steps = stepper.steps;
    var index = hash.step !== undefined ? Math.max(0, Math.min(steps.length - 1, parseInt(hash.step, 10) || 0)) : stepper.open;
    var triggers = [];
    steps.forEach(function (s, i) { if (s.trigger) triggers.push(i); });
    var slider = el("input", { type: "range", min: "0", max: String(Math.max(steps.length - 1, 0)), "aria-label": "step", list: "trigger-marks" });
    var marks = el("datalist", { id: "trigger-marks" });
    triggers.forEach(function (i) { marks.appendChild(el("option", { value: String(i) })); });
    var position = el("span", { cls: "position" });
    function button(label, action, title) {
      var b = el("button", { type: "button", text: label, title: title });
      b.addEventListener("click", action);
      return b;
    }
    function go(i) { index = Math.max(0, Math.min(steps.length - 1, i)); draw(); }
    function nextTrigger() { for (var k = 0; k < triggers.length; k++) if (triggers[k] > index) return go(triggers[k]); }
    function prevTrigger() { for (var k = triggers.length - 1; k >= 0; k--) if (triggers[k] < index) return go(triggers[k]); }
    var controls = el("div", { cls: "controls" }, [
      button("« first", function () { go(0); }, "first step"),
      button("◀ trigger", prevTrigger, "previous trigger"),
      button("◀", function () { go(index - 1); }, "previous step (←)"),
      button("▶", function () { go(index + 1); }, "next step (→)"),
      button("trigger ▶", nextTrigger, "next trigger (N)"),
      button("last »", function () { go(steps.length - 1); }, "last step"),
      slider, marks, position,
    ]);
    slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
    document.addEventListener("keydown", function (e) {
      if (panels.stepper.panel.hidden || e.target.tagName === "INPUT" && e.target.type !== "range") return;
      if (e.key === "ArrowRight") go(index + 1);
      else if (e.key === "ArrowLeft") go(index - 1);
      else if (e.key === "n" || e.key === "N") nextTrigger();
    });
    var eventBox = el("pre", { cls: "event" });
    var buffers = el("div", { cls: "buffers" });
    var rules = el("table", { cls: "rules" });
    var happened = el("div", { cls: "happened" });
    var rendered = el("div", { cls: "rendered" });
    var conversations = el("div", { cls: "conversations" });
    panel.appendChild(controls);
    panel.appendChild(el("div", { cls: "split" }, [
      el("div", {}, [el("h2", { text: "Event" }), eventBox, el("h2", { text: "Buffers" }), buffers,
        el("h2", { text: "What the session did" }), happened, el("h2", { text: "Templates" }), rendered]),
      el("div", {}, [el("h2", { text: "Rules" }), rules]),
    ]));
    panel.appendChild(el("h2", { text: "Conversation the model sees on retry: keep | discard" }));
    panel.appendChild(conversations);

    function bufferNode(b) {
      var key = b[0], text = cps(b[1]).slice(0, b[2]), spans = b[3];
      var marksAt = new Array(text.length + 1);
      spans.forEach(function (s) { for (var i = s[1]; i < s[2] && i < text.length; i++) (marksAt[i] = marksAt[i] || []).push(s[0]); });
      var pre = el("pre", { cls: "buffer" });
      var run = "", runRules = null;
      function flush() {
        if (!run) return;
        if (runRules) pre.appendChild(el("mark", { title: runRules.join(", "), text: run }));
        else pre.appendChild(document.createTextNode(run));
        run = "";
      }
      for (var i = 0; i < text.length; i++) {
        var r = marksAt[i] || null;
        if ((r && r.join()) !== (runRules && runRules.join())) { flush(); runRules = r; }
        run += text[i];
      }
      flush();
      return el("div", {}, [el("h3", { text: key + " (" + text.length + " chars)" }), pre]);
    }
    function messageNode(raw) {
      var m = JSON.parse(strings[raw]);
      var body = typeof m.content === "string" ? m.content : (m.content || []).map(function (c) {
        if (c.type === "text") return c.text;
        if (c.type === "thinking") return "[thinking] " + c.thinking;
        if (c.type === "toolCall") return "[tool " + c.name + "] " + JSON.stringify(c.arguments);
        return JSON.stringify(c);
      }).join("\n");
      return el("div", { cls: "message " + (m.role || "") }, [el("strong", { text: m.role || "?" }), el("pre", { text: body })]);
    }
    function unchain(node) {
      var out = [];
      for (; node >= 0; node = stepper.chains[node][0]) out.push(stepper.chains[node][1]);
      return out.reverse();
    }
    function conversationColumn(title, node) {
      var list = unchain(node);
      return el("div", { cls: "column" }, [el("h3", { text: title + " (" + list.length + " messages)" })].concat(list.map(messageNode)));
    }
    function draw() {
      var s = steps[index];
      hash.step = String(index);
      writeHash();
      slider.value = String(index);
      position.textContent = "step " + index + " / " + (steps.length - 1) + " · " + s.event.type + " · " + s.session + " · messages " + s.count;
      eventBox.textContent = pretty(s.event);
      clear(buffers);
      if (!s.buffers.length) buffers.appendChild(el("p", { cls: "muted", text: "no buffer at this step" }));
      s.buffers.forEach(function (b) { buffers.appendChild(bufferNode(b)); });
      clear(rules);
      rules.appendChild(el("tr", {}, ["rule", "status", "last injected", "gap", "turns left", "why now"].map(function (h) { return el("th", { text: h }); })));
      s.rules.forEach(function (ref) {
        var r = JSON.parse(strings[ref]);
        var cells = [r.name, r.status, r.last_injected_at, r.gap, r.remaining, r.why === null ? "matched" : r.why];
        rules.appendChild(el("tr", { cls: "status-" + String(r.status).replace(/ /g, "-") },
          cells.map(function (c) { return el("td", { text: c === null || c === undefined ? "–" : String(c) }); })));
      });
      clear(happened);
      if (!s.events.length) happened.appendChild(el("p", { cls: "muted", text: "nothing at this step" }));
      s.events.forEach(function (e) { happened.appendChild(el("pre", { text: pretty(e) })); });
      clear(rendered);
      if (!s.rendered.length) rendered.appendChild(el("p", { cls: "muted", text: "no template rendered at this step" }));
      s.rendered.forEach(function (r) { rendered.appendChild(el("div", {}, [el("h3", { text: r[0] }), el("pre", { text: strings[r[1]] })])); });
      clear(conversations);
      var at = s.conversation ? index : s.conversationAt;
      var c = steps[at].conversation;
      if (at !== index) conversations.appendChild(el("p", { cls: "muted", text: "Conversations are kept at key steps; this is the one at step " + at + " (the workbench app shows every step)." }));
      conversations.appendChild(el("div", { cls: "columns" }, [conversationColumn("keep", c.keep), conversationColumn("discard", c.discard)]));
    }
    draw();
  }

  if (session) addTab("tree", "Tree", buildTree);
  if (stepper) addTab("stepper", "Stepper", buildStepper);
  if (!session && !stepper) main.appendChild(el("p", { text: "This export holds no data." }));
  var first = panels[hash.tab] ? hash.tab : stepper && meta.openAt === "stepper" ? "stepper" : Object.keys(panels)[0];
  if (first) show(first);
  document.body.setAttribute("data-ready", "true");
})();
