"""Every live control does something visible; one that would do nothing at the current settings is drawn
disabled with a one-line reason (Frame.control's ``idle``)."""

from __future__ import annotations

import pytest

from devtools.apptest import figure, open_page, reveal, widgets


def info(at, key: str):
    return next(i for _, i in widgets(at) if i.key == key)


def test_the_labs_head_slider_is_held_while_the_head_average_is_shown():
    at = open_page("real_model_lab")
    assert not info(at, "lab_head").disabled
    at.toggle(key="lab_avg").set_value(True).run()
    held = at.slider(key="lab_head")
    assert info(at, "lab_head").disabled and "mean of all 12 heads" in held.help
    # And it truly does nothing there: another head gives the same map.
    before = figure(at, "lab_fig_heat")["data"][0]["z"]
    at.toggle(key="lab_avg").set_value(False).run()
    at.slider(key="lab_head").set_value(5).run()
    at.toggle(key="lab_avg").set_value(True).run()
    assert (figure(at, "lab_fig_heat")["data"][0]["z"] == before).all()
    assert info(at, "lab_head").disabled


@pytest.mark.parametrize("slug, prediction, keys", [
    ("polysemy", "bigger_d", ("pl_dim", "pl_seed")),
    ("masks_and_cross_attention", "causal_rows", ("mk_causal",)),
])
def test_a_control_whose_effect_is_the_answer_waits_for_the_reveal_and_says_why(slug, prediction, keys):
    at = open_page(slug)
    for key in keys:
        control = info(at, key)
        assert control.disabled and "Reveal your prediction" in next(n for n in widgets(at) if n[1].key == key)[0].help
    reveal(at, slug, prediction)
    assert not any(info(at, key).disabled for key in keys)
