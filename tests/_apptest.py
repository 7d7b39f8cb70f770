"""Shared helpers for page tests: open a page through the real navigation."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def open_page(slug: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page(f"pages/{slug}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def texts(at: AppTest) -> str:
    """Everything the page wrote as markdown, captions and alerts, joined."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in (at.success, at.error, at.warning, at.info) for e in kind]
    return "\n".join(str(p) for p in parts)


def answer(at: AppTest, key: str, text_start: str) -> AppTest:
    radio = at.radio(key=key)
    radio.set_value(next(o for o in radio.options if o.startswith(text_start))).run()
    return at
