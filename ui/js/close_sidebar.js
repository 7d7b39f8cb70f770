(() => { const w = window.parent, d = w.document;
  if (w.__attnSidebarClosed === TOKEN) return "done";
  w.__attnSidebarClosed = TOKEN;
  if (w.innerWidth > WIDTH) return "wide";
  const bar = d.querySelector('[data-testid="stSidebar"]');
  const button = d.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (bar && bar.getAttribute("data-collapsed") === "false" && button) button.click();
  return "closed";
})()
