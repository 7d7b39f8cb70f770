"""Students brought to the step (issue 46): when the presenter presses Next, a follower's phone (390×844)
scrolls so that the new step's section heading, not the "Step N of M" line, is at the top of its screen; Back
brings the step it returns to back the same way. Real Chromium against the real server."""

from __future__ import annotations

import ast
import re

import pytest

from devtools import harness
from tests.browser.conftest import SCREENSHOTS, wait_following
from ui.content import APP_DIR, load_lesson

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000                  # generous waits for a loaded machine, not targets
SLUG = "polysemy"
TOP_PX = 120                       # the heading's top edge must be within this many px of the screen's top
# The top of the first visible st.subheader whose text holds the label (null while none is drawn).
HEADING_TOP_JS = """label => {
    const hs = Array.from(document.querySelectorAll('[data-testid="stMain"] h3'));
    const h = hs.find(e => e.textContent.includes(label) && e.getBoundingClientRect().height > 0);
    return h ? h.getBoundingClientRect().top : null; }"""


def step_labels(slug: str) -> list[str]:
    """The page's presenter step labels, in order, read from its ``class Step(Steps)``."""
    tree = ast.parse((APP_DIR / f"pages/{slug}.py").read_text(encoding="utf-8"))
    step = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Step")
    return [a.value.value for a in step.body if isinstance(a, ast.Assign)]


def heading_at_top(page, label: str, shot: str) -> None:
    """Wait until the heading holding ``label`` sits within TOP_PX of the top and stays there a moment."""
    try:
        page.wait_for_function(f"label => {{ const t = ({HEADING_TOP_JS})(label); return t !== null && t >= 0 "
                               f"&& t <= {TOP_PX}; }}", arg=label, timeout=WAIT_MS)
        # no event: "nothing moved it since" has none; charts above it finish growing within this time
        page.wait_for_timeout(1500)
        top = page.evaluate(HEADING_TOP_JS, label)
        assert top is not None and 0 <= top <= TOP_PX, f"the heading {label!r} moved to {top} px"
    except Exception:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / shot))
        raise


def test_next_brings_the_new_steps_heading_to_the_top_of_a_phone(server, devices):
    labels = step_labels(SLUG)
    assert len(labels) == 3 and load_lesson(SLUG).title
    pg = devices(1280, 720)
    pg.goto(f"{server}/?present=1")
    harness.click_until(pg.get_by_role("button", name="Start a class"),
                        pg.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=40_000)
    pg.get_by_text("0 students following").wait_for()
    code = re.search(r"Room code: ([A-Z2-9]{6})", pg.inner_text("body")).group(1)
    pg.locator('[data-testid="stSidebarNav"] a', has_text=load_lesson(SLUG).title).click()
    pg.wait_for_url(re.compile(f"/{SLUG}"))
    phone = devices(390, 844)
    phone.goto(f"{server}/?room={code}")
    phone.wait_for_url(re.compile(f"/{SLUG}\\?.*room={code}"), timeout=WAIT_MS * 2)
    wait_following(phone, code, who="the phone")
    phone.locator('[class*="st-key-_class_step__1"]').first.wait_for()
    harness.settle(phone)                      # step 1 drawn in full: the guide has seen its headings

    for number in (2, 3):
        pg.get_by_role("button", name="Next ▶").click()
        phone.locator(f'[class*="st-key-_class_step__{number}"]').first.wait_for()
        heading_at_top(phone, labels[number - 1], f"step_scroll_next_{number}.png")
        line = phone.locator(f'[class*="st-key-_class_step__{number}"]').first.bounding_box()
        assert line is None or line["y"] + line["height"] <= 0, "the step line, not the heading, is at the top"

    pg.get_by_role("button", name="◀ Back").click()
    phone.locator('[class*="st-key-_class_step__2"]').first.wait_for()
    heading_at_top(phone, labels[1], "step_scroll_back_2.png")
    pg.get_by_role("button", name="Next ▶").click()              # forward again: to the heading it had
    phone.locator('[class*="st-key-_class_step__3"]').first.wait_for()
    heading_at_top(phone, labels[2], "step_scroll_again_3.png")
    assert not phone.errors, phone.errors
