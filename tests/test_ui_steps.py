"""ui.steps: a presenter step is gated by its name, and its number follows its place in the list."""

import pytest

from ui.steps import Steps


class Step(Steps):
    FIRST = "one"
    SECOND = "two"
    THIRD = "three"


class Reordered(Steps):
    THIRD = "three"
    FIRST = "one"
    SECOND = "two"


def test_labels_are_in_order_and_numbers_count_from_one():
    assert Step.labels() == ["one", "two", "three"]
    assert [s.number for s in Step] == [1, 2, 3]


@pytest.mark.parametrize("shown", [1, 2, 3])
def test_a_step_is_reached_exactly_when_the_frame_has_shown_that_many(shown):
    for step in Step:
        assert (shown >= step) == (shown >= Step.labels().index(step.value) + 1)
        assert (shown < step) == (not shown >= step)


def test_reordering_the_members_moves_each_gate_with_its_label():
    # the label a gate opens on is the same however the list is ordered
    for members in (Step, Reordered):
        for step in members:
            assert members.labels()[step.number - 1] == step.value
    assert Reordered.THIRD.number == 1 and 1 >= Reordered.THIRD and not 1 >= Reordered.FIRST


def test_a_step_does_not_compare_with_other_types():
    with pytest.raises(TypeError):
        assert Step.FIRST < "2"
    with pytest.raises(TypeError):
        assert Step.FIRST <= 1.5


def test_no_page_gates_a_step_on_a_bare_number():
    """`shown >= 4` breaks silently when a label moves; pages compare with a named Step instead."""
    import ast
    from pathlib import Path

    found = []
    for path in sorted(Path(__file__).resolve().parent.parent.joinpath("pages").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Name) and s.id in ("shown", "step") for s in sides) and any(
                    isinstance(s, ast.Constant) and isinstance(s.value, int) for s in sides):
                line = source.splitlines()[node.lineno - 1].strip()
                found.append(f"{path.name}:{node.lineno}: {line}")
    assert not found, "gate on a named step (ui/steps.py):\n" + "\n".join(found)
