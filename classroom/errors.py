"""What the room store refuses, each as an exception whose str is a sentence a user can be told (with no user
text in it). Part of the store's interface (classroom/store.py, which re-exports every name here)."""

from __future__ import annotations

import enum


class RoomError(Exception):
    """Something a user should be told in a sentence (its str is that sentence, with no user text)."""


class UnknownRoom(RoomError):
    """No such room, or it expired, or the class ended."""


class NotPresenter(RoomError):
    """The presenter key is missing or wrong."""


class RoomFull(RoomError):
    """A limit was reached: rooms in this store, followers in a room, or polls in a room."""


class StoreUnavailable(RoomError):
    """The shared store cannot be reached right now (Redis down): the lesson keeps working on its own.
    Every method of the Redis store raises it (and only it) while Redis is unreachable; its str is
    "Reconnecting to the class…". The in-process store never raises it."""


class RateLimited(RoomError):
    """This address (or the whole server) made too many attempts: try again in ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = max(1.0, float(retry_after))


class Outdated(RoomError):
    """A presenter screen published a view made from a version of the room older than the room's: another screen
    of the same class has moved it since. Nothing changed; that screen takes the room's view first."""

    def __init__(self, message: str = "The class has moved on since this screen last looked: try again.") -> None:
        super().__init__(message)


class RoomLocked(RoomError):
    """The presenter locked the class: no new student may join (those in it stay)."""


class Refusal(enum.Enum):
    """Why a vote was not counted (``VoteRefused.reason``)."""

    NOT_FOLLOWING = "not_following"     # the voter is not a live follower of the room
    NOT_OPEN = "not_open"               # the question was closed, revealed, replaced or never asked
    NO_SUCH_OPTION = "no_such_option"   # not one of the question's options
    FULL = "full"                       # as many voters as MAX_FOLLOWERS already answered this round


class VoteRefused(RoomError):
    """A vote that was not counted; ``reason`` (a ``Refusal``) says why, and each reason has its subclass."""

    reason: Refusal
    message = "That answer was not counted."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)


class NotFollowing(VoteRefused):
    reason = Refusal.NOT_FOLLOWING
    message = "Your answer was not counted: this browser is not following the class right now. Join it again."


class NotOpen(VoteRefused):
    reason = Refusal.NOT_OPEN
    message = "Your answer was not counted: the presenter has closed this question."


class NoSuchOption(VoteRefused):
    reason = Refusal.NO_SUCH_OPTION
    message = "Your answer was not counted: it is not one of this question's options."


class VotersFull(VoteRefused):
    reason = Refusal.FULL
    message = "Your answer was not counted: this question has as many answers as the class has seats."


REFUSALS: dict[Refusal, type[VoteRefused]] = {c.reason: c for c in (NotFollowing, NotOpen, NoSuchOption, VotersFull)}
