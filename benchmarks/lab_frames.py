"""The lab's websocket frames for benchmarks/lab_class.py: what a real Chromium sends when a sentence is typed
and the layer slider moved, and the same frames with the sentence, layer and head rewritten.
"""

from __future__ import annotations

import asyncio

from benchmarks.soak_lab import sentences
from devtools import harness

SLUG = "real_model_lab"


def long_sentences(n: int, offset: int = 0) -> list[str]:
    """n texts, each at least 128 tokens long and different from the others in its first sentence."""
    pool = sentences(n + 20, offset)
    return [" ".join(pool[i:i + 20]) if i + 20 <= len(pool) else " ".join(pool[i - 20:i]) for i in range(n)]


def capture(base: str) -> dict:
    """The frames a real Chromium sends: a full rerun with a typed sentence, and a layer move (a fragment
    rerun); and the widget ids of the sentence, layer and head."""
    from playwright.sync_api import sync_playwright
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent: list[bytes] = []
    with sync_playwright() as p:
        browser = harness.launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 3000})
        runs = harness.Runs(page)
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f) if isinstance(f, bytes) else None))
        runs.open(harness.page_url(base, SLUG))
        done = runs.finished
        page.wait_for_selector('[data-testid="stMain"] [data-testid="stTextInput"] input', timeout=600_000)
        box = page.locator('[data-testid="stMain"] [data-testid="stTextInput"] input').first
        box.fill(long_sentences(1, 6100)[0])
        box.press("Enter")
        runs.wait(done)
        page.wait_for_selector(harness.SLIDER_INPUT, timeout=600_000)
        for key in ("ArrowRight", "ArrowLeft", "ArrowRight"):        # until the browser has sent a fragment run
            done = runs.finished
            page.locator(harness.SLIDER_INPUT).first.focus()
            page.keyboard.press(key)
            runs.wait(done)
            if any(BackMsg.FromString(f).rerun_script.fragment_id for f in sent):
                break
        browser.close()
    reruns = [BackMsg.FromString(f) for f in sent]
    reruns = [m for m in reruns if m.WhichOneof("type") == "rerun_script"]
    full = next(m for m in reversed(reruns) if not m.rerun_script.fragment_id)
    fragment = next(m for m in reversed(reruns) if m.rerun_script.fragment_id)
    ids = {}
    for w in fragment.rerun_script.widget_states.widgets:
        for key in ("lab_text", "lab_layer", "lab_head"):
            if w.id.endswith(f"-{key}") or w.id == key:
                ids[key] = w.id
    missing = {"lab_text", "lab_layer", "lab_head"} - set(ids)
    if missing:
        raise SystemExit(f"could not find the widgets {missing} in the captured frames")
    return {"full": full, "fragment": fragment, "ids": ids}


def capture_ws(base: str) -> dict:
    """The same as capture(), without a browser: one websocket run of the lab gives the widgets' ids and
    the fragment's id (from the deltas), and the frames are built from them. (On a machine too loaded for
    Chromium to draw the lab within minutes, this still works.)"""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    async def first_run() -> list:
        got = []
        async with connect(base) as ws:
            msg = BackMsg()
            msg.rerun_script.page_name = SLUG
            await ws.send(msg.SerializeToString())
            from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
            finished = 0
            while True:                     # a fresh session's first run only sets up the navigation; the
                m = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), timeout=600))   # page runs next
                got.append(m)
                finished += m.WhichOneof("type") == "script_finished"
                if finished == 2:
                    return got

    ids, fragment_id = {}, ""
    for m in asyncio.run(first_run()):
        if m.WhichOneof("type") != "delta" or m.delta.WhichOneof("type") != "new_element":
            continue
        element = m.delta.new_element
        widget = getattr(element, element.WhichOneof("type"))
        wid = getattr(widget, "id", "")
        for key in ("lab_text", "lab_layer", "lab_head"):
            if wid.endswith(f"-{key}"):
                ids[key] = wid
                if key == "lab_layer":
                    fragment_id = m.delta.fragment_id
    if set(ids) != {"lab_text", "lab_layer", "lab_head"} or not fragment_id:
        raise SystemExit(f"the lab's widgets or fragment were not found: {ids}, {fragment_id!r}")
    full = BackMsg()
    full.rerun_script.page_name = SLUG
    for key, wid in ids.items():
        w = full.rerun_script.widget_states.widgets.add()
        w.id = wid
        if key == "lab_text":
            w.string_value = ""
        else:
            w.double_array_value.data.append(1.0)
    fragment = BackMsg()
    fragment.CopyFrom(full)
    fragment.rerun_script.fragment_id = fragment_id
    return {"full": full, "fragment": fragment, "ids": ids}


def frame(template, ids: dict, text: str | None = None, layer: int | None = None, head: int | None = None,
          fragment_id: str | None = None) -> bytes:
    """``template`` (a captured BackMsg) with the sentence, layer and head set (and, for a fragment run, the
    fragment's id as the session's own run showed it: see lab_class.session_fragment); serialised."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    msg.CopyFrom(template)
    if fragment_id and msg.rerun_script.fragment_id:
        msg.rerun_script.fragment_id = fragment_id
    for w in msg.rerun_script.widget_states.widgets:
        if w.id == ids["lab_text"] and text is not None:
            w.string_value = text
        elif w.id == ids["lab_layer"] and layer is not None:
            del w.double_array_value.data[:]
            w.double_array_value.data.append(float(layer))
        elif w.id == ids["lab_head"] and head is not None:
            del w.double_array_value.data[:]
            w.double_array_value.data.append(float(head))
    msg.rerun_script.query_string = ""
    return msg.SerializeToString()


def connect(base: str):
    import websockets

    return websockets.connect(harness.stream_url(base), subprotocols=["streamlit"],
                              max_size=None, open_timeout=120, ping_interval=None)


