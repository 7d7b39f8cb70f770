"""Every place a learner can type or set a value, found by walking every page with AppTest (the walk; the
command is scripts/input_inventory.py, and tests/test_input_inventory.py checks the files are current).

    python -m scripts.input_inventory            # rewrite docs/INPUTS.md and assets/lessons/control_labels.toml
    python -m scripts.input_inventory --check    # exit 1 if either is out of date
    python -m scripts.input_inventory --print    # print the table only

Pages come from ui.content.page_index(), widgets from the AppTest tree (devtools/apptest.py), so a
page that lands later shows up on the next run. Each page is opened twice (normally and in presenter
mode); unanswered questions are answered and enabled buttons clicked once, so widgets that appear only
after a reveal are listed too. Each text field is then probed with a few bad entries, and the message
the page shows for each is recorded, so the table says what a learner actually sees.

The same walk writes assets/lessons/control_labels.toml: each lesson control's label, by page and key,
which the app reads to name a control in a message (a link's setting it could not use). It lives with
the lessons' assets, since docs/ is not part of the running app (.dockerignore leaves it out).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import tomllib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from devtools.apptest import TEXT_KINDS, WidgetInfo, as_the_server, messages, open_page, widgets
from ui import content, controls
from ui.content import LABELS_FILE, page_index

ROOT = Path(__file__).resolve().parent.parent

DOC = ROOT / "docs" / "INPUTS.md"
BEGIN, END = "<!-- BEGIN GENERATED: scripts/input_inventory.py -->", "<!-- END GENERATED -->"
PROBES = {"empty": "", "a word": "abc", "wrong shape": "1,2\n3", "1e308": "1e308", "4,001+ characters": "1," * 2001}
BUTTONS = ("button", "form_submit_button")
Found = dict[str, dict[tuple[str, str | None, str], tuple[WidgetInfo, str]]]     # slug -> explore(slug)


def explore(slug: str) -> dict[tuple[str, str | None, str], tuple[WidgetInfo, str]]:
    """Every widget seen on the page, keyed by (kind, key, label), with how the URL can set it."""
    found: dict = {}

    def collect(at):
        for node, info in widgets(at):
            bound = getattr(node.proto, "query_param_key", "") if hasattr(node.proto, "query_param_key") else ""
            found.setdefault((info.kind, info.key, info.label), (info, "bound" if bound else ""))

    for params in ({}, {"present": "1"}):
        at = open_page(slug, check=False, **params)
        collect(at)
        for node, info in widgets(at):                       # answer questions, press buttons: reveals
            if info.kind == "radio" and info.value is None and info.options:
                node.set_value(node.options[0])
        at.run()
        collect(at)
        for node, info in widgets(at):
            if info.kind in BUTTONS and not info.disabled:
                node.click()
                at.run()
                collect(at)
                break
        collect(at)
    return found


def probe(slug: str, info: WidgetInfo) -> tuple[list[str], bool]:
    """The message the page shows for each bad entry in a text field, and whether the URL mirrors it."""
    at = open_page(slug, check=False)
    baseline = set(messages(at))
    shown, mirrored = [], False
    for name, text in PROBES.items():
        node = next((n for n, i in widgets(at) if (i.kind, i.key, i.label) == (info.kind, info.key, info.label)),
                    None)
        if node is None:
            break
        node.set_value(text).run()
        if at.exception:
            shown.append(f"{name} → EXCEPTION {at.exception[0].message[:60]}")
            at = open_page(slug, check=False)
            continue
        mirrored = mirrored or (info.key in at.query_params)
        new = [m for m in messages(at) if m not in baseline]
        shown.append(f"{name} → " + (f"“{_one_line(new[0])}”" if new else "accepted, no message"))
    if info.is_matrix and not at.exception:              # refused entries never reach the URL: try an accepted one
        node = next((n for n, i in widgets(at) if (i.kind, i.key, i.label) == (info.kind, info.key, info.label)), None)
        if node is not None:
            accepted = re.sub(r"\d", lambda m: str((int(m[0]) + 1) % 10), str(info.value), count=1)
            node.set_value(accepted).run()
            mirrored = mirrored or (info.key in at.query_params and not at.exception)
    return shown, mirrored


def _one_line(text: str, limit: int = 110) -> str:
    # As the learner reads it: Markdown's punctuation escapes and the autolink breaker removed.
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text).replace("\u2060", "")
    text = " ".join(text.replace("|", "\\|").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def legal(info: WidgetInfo) -> str:
    if info.kind in ("slider", "number_input"):
        lo = "−∞" if info.min is None else f"{info.min:g}" if isinstance(info.min, int | float) else str(info.min)
        hi = "∞" if info.max is None else f"{info.max:g}" if isinstance(info.max, int | float) else str(info.max)
        return f"[{lo}, {hi}], step {info.step:g}" if isinstance(info.step, int | float) else f"[{lo}, {hi}]"
    if info.options:
        picks = f"at most {info.max_selections} of: " if info.max_selections else ""
        typed = "; or a new word typed (the page caps its length: see notes)" if info.accept_new_options else ""
        return picks + _one_line(" / ".join(info.options), 90 - len(picks)) + typed
    if info.kind in ("toggle", "checkbox"):
        return "on / off"
    if info.kind in TEXT_KINDS:
        cap = f"≤ {info.max_chars:,} characters" if info.max_chars else "any text (no length cap in the widget)"
        return ("a matrix: " if info.is_matrix else "free text: ") + cap
    if info.kind in BUTTONS:
        return "press"
    return "—"


def validation(info: WidgetInfo, url: str) -> str:
    link = "; a bad link value is dropped with a notice" if url == "bound" else ""
    if info.key == "_present_switch":
        return "Streamlit: boolean; `?present=` other than 1/true/yes/on means off"
    if info.kind in TEXT_KINDS and info.is_matrix:
        return ("parse_matrix: numbers only, finite, abs ≤ 1e6, ≤ 4,000 characters, ≤ 32 rows × 32 columns, "
                "equal rows; then the page's shape checks")
    if info.kind in TEXT_KINDS:
        return "the page's own (see notes)"
    if info.kind == "number_input":
        return "Streamlit: the browser clamps to [min, max] and cannot type NaN/inf; empty = None" + link
    if info.kind in ("slider", "select_slider"):
        return "Streamlit: only legal positions" + link
    if info.accept_new_options:
        return "Streamlit: options or typed words, ≤ max picks; the page drops longer words and extra picks" \
               " with a message" + link
    if info.kind in ("radio", "selectbox", "multiselect", "pills", "segmented_control"):
        return "Streamlit: fixed options" + link
    if info.kind in ("toggle", "checkbox"):
        return "Streamlit: on/off" + link
    return "no value"


def page_rows(slug: str, widgets_seen: dict) -> list[str]:
    """The table's rows for one page (its text fields probed)."""
    rows = []
    for (kind, key, label), (info, bound) in widgets_seen.items():
        shown, mirrored = probe(slug, info) if kind in TEXT_KINDS else ([], False)
        url = "bound" if bound else "mirrored once accepted (bad link → default + notice)" if mirrored else "—"
        if key == "_present_switch":
            url = "`?present=1`"
        default = "—" if kind in BUTTONS else f"`{_one_line(repr(info.value), 40)}`"
        place = " (sidebar)" if info.where == "sidebar" else ""
        rows.append(f"| {slug} | `{key or '(no key)'}` | {kind}{place} | {_one_line(label, 40)} | "
                    f"{legal(info)} | {default} | {url} | {validation(info, url)} | "
                    + ("<br>".join(shown) if shown else "—") + " |")
    return rows


def table(found: Found, parallel: bool = True) -> str:
    rows = ["| Page | Widget key | Kind | Label | Legal values | Default | URL | Validation | What the page shows |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    slugs = [entry.slug for entry in page_index()]
    for page in _each_page(page_rows, slugs, [found[slug] for slug in slugs], parallel=parallel):
        rows += page
    return "\n".join(rows)


def _each_page(fn, *columns, parallel: bool = True) -> list:
    """``fn`` over the pages, in order (the same output as a loop). With ``parallel``, one process per core,
    each page walked in AppTest on its own; without, in this process (a test that already runs its AppTests
    as the server does, and would pay for the processes' imports more than it gains)."""
    if not parallel:
        return [fn(*args) for args in zip(*columns, strict=True)]
    # By its importable name: a module run as ``-m`` is __main__, which AppTest replaces with the app.
    walk = importlib.import_module("devtools.inventory")._as_the_server
    with ProcessPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        return list(pool.map(walk, [fn.__name__] * len(columns[0]), *columns))


def _as_the_server(name: str, *args):
    """The function ``name`` of this module on one page, its AppTests running as the server runs pages
    (devtools.apptest.as_the_server: compiled once, components found once per process)."""
    with as_the_server():
        return getattr(importlib.import_module("devtools.inventory"), name)(*args)


def labels(found: Found) -> str:
    """assets/lessons/control_labels.toml: a table per page, each lesson control's key = the label it shows
    (the first label seen, where a label follows other values, as a token's name does)."""
    out = ["# Generated by scripts/input_inventory.py from the pages (python -m scripts.input_inventory): do not edit.",
           "# Each lesson control's label, by page and key, for naming a control in a message."]
    for entry in page_index():
        named: dict[str, str] = {}
        for kind, key, label in found[entry.slug]:
            if controls.is_lesson_control(key) and kind not in BUTTONS:
                named.setdefault(key, label)
        if named:
            out += ["", f"[{entry.slug}]"]
            out += [f"{key} = {json.dumps(label, ensure_ascii=False)}" for key, label in sorted(named.items())]
    return "\n".join(out) + "\n"


def wanted(parallel: bool = True, write_labels: bool = False) -> dict[Path, str]:
    """What docs/INPUTS.md and the labels file should hold, from a walk of every page now. With
    ``write_labels`` the labels file is written first: the table records notices that name controls by them."""
    slugs = [entry.slug for entry in page_index()]
    found = dict(zip(slugs, _each_page(explore, slugs, parallel=parallel), strict=True))
    named = labels(found)
    if write_labels:
        LABELS_FILE.write_text(named, encoding="utf-8")
        content.control_labels.cache_clear()
    doc = DOC.read_text(encoding="utf-8")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return {DOC: f"{head}{BEGIN}\n{table(found, parallel)}\n{END}{tail}", LABELS_FILE: named}


def stale(want: dict[Path, str]) -> list[Path]:
    """The generated files that differ from what the pages give."""
    return [path for path, text in want.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if either generated file is out of date")
    parser.add_argument("--print", action="store_true", help="print the table and write nothing")
    args = parser.parse_args()
    want = wanted(write_labels=not (args.check or args.print))
    generated = want[DOC].split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")
    if args.print:
        print(generated)
        return 0
    if args.check:
        for path in (late := stale(want)):
            print(f"{path.relative_to(ROOT)} is out of date: run python -m scripts.input_inventory", file=sys.stderr)
        if not late:
            print("docs/INPUTS.md and assets/lessons/control_labels.toml are up to date")
        return 1 if late else 0
    for path, text in want.items():
        path.write_text(text, encoding="utf-8")
    print(f"docs/INPUTS.md: {generated.count(chr(10)) - 1} inputs over {len(page_index())} pages; "
          f"{LABELS_FILE.relative_to(ROOT)}: {sum(map(len, tomllib.loads(want[LABELS_FILE]).values()))} "
          "lesson controls")
    return 0

