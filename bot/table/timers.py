"""A table's timers: the lazy turn timer (rule 5) and cancelling what a table has armed."""

from __future__ import annotations

from bot.core.ports import TimerHandle
from bot.table.runtime import Runtime


class TurnTimer:
    """The timer of a player's turn (rule 5), set lazily: an action moves the deadline (and the turn it is
    for) here without touching the clock; the clock timer, set for an earlier deadline, finds the new one
    when it fires and is set again for it. A timeout happens exactly when one timer per action would have
    made it happen: at the last deadline, for the turn armed last, and never once cancelled."""

    __slots__ = ("due", "handle", "live", "token", "when")

    def __init__(self, *, when: float, token: str | None) -> None:
        self.when = when
        """The deadline: the player to act times out then."""
        self.token = token
        """The turn the deadline is for (see :attr:`Runtime.turn`)."""
        self.due = when
        """When the clock timer fires (never after :attr:`when`)."""
        self.live = False
        """The clock timer is set and has not fired: a later deadline needs no new one."""
        self.handle: TimerHandle | None = None

    def cancel(self) -> None:
        self.live = False
        if self.handle is not None:
            self.handle.cancel()


def cancel_timers(rt: Runtime) -> None:
    """Every timer of one table cancelled: its turn's and its next deal's."""
    rt.turn_timer = cancelled(rt.turn_timer)
    rt.next_timer = cancelled(rt.next_timer)


def cancelled(handle: TimerHandle | None) -> TimerHandle | None:
    """Cancel ``handle`` (if any); returns None, to clear the field that held it."""
    if handle is not None:
        handle.cancel()
    return None
