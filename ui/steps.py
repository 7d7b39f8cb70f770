"""Presenter steps with names, so gating a section never depends on where its label sits in a list.

A page lists its steps once, in order, as an enum whose values are the labels shown in the step bar::

    class Step(Steps):
        SHADOW = "The shadow on the runway"
        SWAP = "Swap the plane and the runway"

    shown = frame.steps(Step.labels())
    if shown >= Step.SWAP:
        ...

A step's number is its position in the enum, so moving a member moves its label and its gate together:
no bare ``shown >= 2`` can be left pointing at another section. ``frame.steps`` still returns the number
of steps shown (an int); a member compares with it by its position (``<``, ``<=``, ``>``, ``>=``).
"""

from __future__ import annotations

import enum


class Steps(enum.Enum):
    """A page's presenter steps, in teaching order; each member's value is its label."""

    @property
    def number(self) -> int:
        """1 for the first step, 2 for the second, …: its position in the enum."""
        return list(type(self)).index(self) + 1

    @classmethod
    def labels(cls) -> list[str]:
        """The labels, in order, for ``frame.steps``."""
        return [member.value for member in cls]

    def _position(self, other: object) -> int | None:
        if isinstance(other, bool) or not isinstance(other, int):
            return None
        return other

    def __lt__(self, other: object) -> bool:
        n = self._position(other)
        return NotImplemented if n is None else self.number < n

    def __le__(self, other: object) -> bool:
        n = self._position(other)
        return NotImplemented if n is None else self.number <= n

    def __gt__(self, other: object) -> bool:
        n = self._position(other)
        return NotImplemented if n is None else self.number > n

    def __ge__(self, other: object) -> bool:
        n = self._position(other)
        return NotImplemented if n is None else self.number >= n
