const w = window, d = w.document, pages = PAGES, item = p => THEME_ITEM.replace("{path}", p);
if (w.__attnHooks) return;
w.__attnHooks = true;
const trim = p => p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
const base = p => {
  for (const name of pages) if (name && trim(p).endsWith("/" + name)) return trim(p).slice(0, -name.length);
  return p.endsWith("/") ? p : p + "/";
};
const loaded = new URL((w.performance.getEntriesByType("navigation")[0] || {}).name || w.location.href).pathname;
const read = () => { try { return w.localStorage.getItem(item(loaded)); } catch (e) { return null; } };
const first = read();
const keep = force => {
  const theme = read();
  if (theme === null || (!force && theme === first)) return;      // not chosen in this page load: left alone
  try {
    const root = base(loaded), paths = new Set(pages.map(n => root + n));
    if (root.length > 1) paths.add(trim(root));
    paths.forEach(p => { if (w.localStorage.getItem(item(p)) !== theme) w.localStorage.setItem(item(p), theme); });
  } catch (e) { /* storage refused: nothing kept, as before */ }
};
d.addEventListener("click", e => {
  if (e.target.closest && e.target.closest('[data-testid="stThemeSwitcher"]')) setTimeout(() => keep(true), 0);
}, true);
w.addEventListener("pagehide", () => keep(false));
d.addEventListener("visibilitychange", () => { if (d.visibilityState === "hidden") keep(false); });
let shown = null, queued = false;
const showPage = () => {                          // once per page shown: the learner may scroll the list after
  queued = false;
  const box = d.querySelector('[data-testid="stSidebarNavItems"]');
  const here = box && box.querySelector('[data-testid="stSidebarNavLink"][aria-current="page"]');
  if (!here || here === shown || box.scrollHeight <= box.clientHeight) return;   // not (yet) a box that scrolls
  shown = here;
  const top = here.getBoundingClientRect().top - box.getBoundingClientRect().top;
  if (top < 0 || top + here.offsetHeight > box.clientHeight) box.scrollTop += top - box.clientHeight / 3;
};
new MutationObserver(() => { if (!queued) { queued = true; w.requestAnimationFrame(showPage); } })
  .observe(d.body, {subtree: true, childList: true, attributes: true, attributeFilter: ["aria-current"]});
showPage();
const scrollTo = (path, anchor, started) => {
  const el = trim(w.location.pathname) === path ? d.getElementById(anchor) : null;
  if (!el) { if (Date.now() - started < 15000) setTimeout(() => scrollTo(path, anchor, started), 100); return; }
  const mark = () => {
    if (w.location.hash !== "#" + anchor && trim(w.location.pathname) === path)
      w.history.replaceState(w.history.state, "", w.location.pathname + w.location.search + "#" + anchor);
  };
  const box = el.closest('[data-testid="stElementContainer"]') || el;
  mark();
  box.scrollIntoView({block: "start"});
  setTimeout(() => {
    mark();
    if (Math.abs(box.getBoundingClientRect().top) > 120) box.scrollIntoView({block: "start"});
  }, 600);
};
d.addEventListener("click", e => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target.closest && e.target.closest('[data-testid="stMarkdownContainer"] a[href]');
  if (!a || (a.getAttribute("href") || "").startsWith("#")) return;
  const url = new URL(a.getAttribute("href"), w.location.href);
  if (url.origin !== w.location.origin) return;
  const path = trim(url.pathname);
  const nav = Array.from(d.querySelectorAll('[data-testid="stSidebarNavLink"]'))
    .find(l => trim(new URL(l.href, w.location.href).pathname) === path);
  if (!nav && !pages.some(n => trim(base(path) + n) === path)) return;     // not one of the app's pages
  e.preventDefault();
  e.stopPropagation();
  if (!nav) { w.location.assign(url.href); return; }
  nav.click();
  if (url.hash.length > 1) scrollTo(path, decodeURIComponent(url.hash.slice(1)), Date.now());
}, true);
