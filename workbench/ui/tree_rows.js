export function render({ model, el }) {
  const box = document.createElement("div");
  box.className = "wb-tree";
  box.tabIndex = 0;
  box.setAttribute("role", "listbox");
  box.setAttribute("aria-label", "Session tree");
  let byId = new Map();

  function rowEl(r) {
    // r = [id, prefix, active, label, text, kind, why]
    const d = document.createElement("div");
    d.className = "wb-tree-row" + (r[2] ? " wb-active" : "") + (r[5] === "meta" ? " wb-kind-meta" : "");
    d.dataset.id = r[0];
    d.setAttribute("role", "option");
    const p = document.createElement("span"); p.className = "wb-prefix"; p.textContent = r[1]; d.appendChild(p);
    if (r[2]) { const b = document.createElement("span"); b.className = "wb-bullet"; b.textContent = "• "; d.appendChild(b); }
    if (r[3]) { const l = document.createElement("span"); l.className = "wb-label"; l.textContent = "[" + r[3] + "] "; d.appendChild(l); }
    const t = document.createElement("span"); t.className = "wb-text"; t.textContent = r[4]; d.appendChild(t);
    // r[6]: under a search, the matching words the row's text does not show (a tool's output, say)
    if (r[6]) { const w = document.createElement("span"); w.className = "wb-why"; w.textContent = "  ← matched: " + r[6]; d.appendChild(w); }
    return d;
  }
  // Windowed: the list is as tall as all its rows (a spacer), but only the window Python sent
  // (model.rows, starting at row model.offset) exists in the DOM. Scrolling outside it asks Python
  // for the rows there; whatever the session's size the browser holds about a hundred rows.
  const ROW_H = 19;
  const spacer = document.createElement("div");
  spacer.className = "wb-tree-spacer";
  const win = document.createElement("div");
  win.className = "wb-tree-window";
  spacer.appendChild(win);
  box.appendChild(spacer);
  let asked = -1;
  function draw() {
    const frag = document.createDocumentFragment();
    byId = new Map();
    for (const r of model.rows) { const d = rowEl(r); byId.set(r[0], d); frag.appendChild(d); }
    win.replaceChildren(frag);
    spacer.style.height = (model.total * ROW_H) + "px";
    win.style.top = (model.offset * ROW_H) + "px";
    box.dataset.total = model.total;
    box.dataset.offset = model.offset;
    if (!model.rows.length && !model.total) {
      const e = document.createElement("div"); e.className = "wb-tree-empty"; e.textContent = model.empty_text; win.appendChild(e);
    }
    asked = -1;
    mark();
    // the list may not be laid out yet (first render, a tab just shown): try again once it is
    requestAnimationFrame(reveal);
    setTimeout(reveal, 250);
  }
  let current = null;
  let revealed = -2;  // the selected index last scrolled into view: a new window alone never scrolls
  function mark() {
    if (current) { current.classList.remove("wb-selected"); current.removeAttribute("aria-selected"); }
    current = byId.get(model.selected) || null;
    if (current) {
      current.classList.add("wb-selected");
      current.setAttribute("aria-selected", "true");
    }
    reveal();
  }
  function reveal() {
    const idx = model.selected_index;
    if (idx === revealed || idx < 0 || !box.clientHeight) return;
    revealed = idx;
    const top = idx * ROW_H, bottom = top + ROW_H;
    if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 2);
    }
  }
  // ask for the window under the viewport shortly after scrolling settles (a timer, not an animation
  // frame: frames are not run for a page in the background, a timer is)
  let timer = null;
  function askWindow() {
    timer = null;
    const first = Math.floor(box.scrollTop / ROW_H);
    const shown = Math.ceil(box.clientHeight / ROW_H) + 1;
    const lo = model.offset, hi = model.offset + model.rows.length;
    if ((first < lo && lo > 0) || (first + shown > hi && hi < model.total)) {
      const start = Math.max(0, first - 40);
      if (start !== asked) { asked = start; model.send_msg({ kind: "window", start: start }); }
    }
  }
  box.addEventListener("scroll", () => {
    if (timer === null) timer = setTimeout(askWindow, 40);
  });
  function openLabelEditor() {
    const row = byId.get(model.selected);
    if (!row || row.querySelector("input")) return;
    const input = document.createElement("input");
    input.className = "wb-label-edit";
    input.placeholder = "label (empty clears)";
    const lab = row.querySelector(".wb-label");
    input.value = lab ? lab.textContent.slice(1, -2) : "";
    row.insertBefore(input, row.querySelector(".wb-text"));
    input.focus(); input.select();
    let done = false;
    const finish = (save) => {
      if (done) return; done = true;
      if (save) model.send_msg({ kind: "label", id: row.dataset.id, value: input.value });
      input.remove(); box.focus();
    };
    input.addEventListener("keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Enter") { e.preventDefault(); finish(true); }
      else if (e.key === "Escape") { e.preventDefault(); finish(false); }
    });
    input.addEventListener("blur", () => finish(false));
  }
  box.addEventListener("click", (e) => {
    if (e.target.tagName === "INPUT") return;
    const row = e.target.closest(".wb-tree-row");
    if (row) { model.selected = row.dataset.id; }
    box.focus();
  });
  function shortcut(e) {
    // Returns a message for the flavour's keys, or null.
    if (e.altKey && !e.ctrlKey && /^Key[DTULA]$/.test(e.code)) return { kind: "key", key: "alt+" + e.code.slice(3).toLowerCase() };
    if (e.ctrlKey && !e.altKey && e.code === "KeyO") return { kind: "key", key: e.shiftKey ? "shift+ctrl+o" : "ctrl+o" };
    return null;
  }
  box.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    let msg = shortcut(e);
    if (!msg) {
      if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown", "Escape", "Enter", "Backspace"].includes(e.key)) {
        msg = { kind: "key", key: e.key.toLowerCase() };
      } else if (e.shiftKey && !e.ctrlKey && !e.altKey && e.code === "KeyL") {
        e.preventDefault(); e.stopPropagation(); openLabelEditor(); return;
      } else if (e.key.length === 1 && !e.ctrlKey && !e.altKey && !e.metaKey) {
        msg = { kind: "type", text: e.key };
      }
    }
    if (msg) { e.preventDefault(); e.stopPropagation(); model.send_msg(msg); }
  });
  // Alt+D/T/U/L/A and Ctrl+O also work while the search box has focus (omp's search is typed into the list).
  const onDoc = (e) => {
    if (!box.isConnected || box.offsetParent === null) return;
    if (e.key === "Escape") {
      // Esc in the tree's search box clears the box and the list (Python owns the query)
      const inSearch = e.composedPath().some((n) => n.classList && n.classList.contains("wb-search"));
      if (inSearch) { e.preventDefault(); model.send_msg({ kind: "key", key: "clear-search" }); }
      return;
    }
    const msg = shortcut(e);
    if (msg) { e.preventDefault(); model.send_msg(msg); }
  };
  document.addEventListener("keydown", onDoc);
  model.on("remove", () => document.removeEventListener("keydown", onDoc));
  for (const name of ["rows", "offset", "total", "empty_text"]) model.on(name, draw);
  for (const name of ["selected", "selected_index"]) model.on(name, mark);
  model.on("msg:custom", (msg) => {
    if (msg.kind === "edit-label") openLabelEditor();
    else if (msg.kind === "focus") box.focus();
  });
  draw();
  return box;
}
