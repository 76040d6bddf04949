export function render({ model, el }) {
  const marker = document.createElement("span");
  marker.style.display = "inline-block";
  marker.style.width = "1px";
  marker.style.height = "1px";
  const wanted = new Set(model.keys);
  const onKey = (e) => {
    if (!marker.isConnected || marker.offsetParent === null) return;
    const t = e.composedPath()[0];
    const tag = (t && t.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag) || (t && t.isContentEditable)) return;
    if (e.ctrlKey || e.altKey || e.metaKey) return;
    const name = (e.shiftKey && e.key.length === 1 ? "shift+" : "") + (e.key === " " ? "space" : e.key.toLowerCase());
    if (!wanted.has(name)) return;
    e.preventDefault();
    model.send_msg({ key: name });
  };
  document.addEventListener("keydown", onKey);
  model.on("remove", () => document.removeEventListener("keydown", onKey));
  return marker;
}
