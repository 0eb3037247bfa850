"""The real clock, which an in-process end-to-end test can move forward to its next timer.

A table deals its first hand only after its usual pause (the commitment is shown first, FAIRNESS.md);
the e2e harnesses run with a long pause (600 s) so that no second hand comes by itself, and
:func:`pass_the_pause` lets the first one come now: time jumps to the next timer due, as if the test
had slept until then. Everything else runs on real time.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable

from bot.core.clock import _guarded, _Handle


class SkipClock:
    """:class:`bot.core.clock.RealClock`, plus :meth:`skip_to_next`."""

    def __init__(self) -> None:
        self.offset = 0.0
        self._tasks: set[asyncio.Task[None]] = set()
        self._timers: dict[_Handle, tuple[float, Callable[[], Awaitable[None]]]] = {}
        LIVE.add(self)

    def now(self) -> float:
        return time.time() + self.offset

    def monotonic(self) -> float:
        """Skips with :meth:`now`: an interval measured across a skip has passed too."""
        return time.monotonic() + self.offset

    def call_at(self, when: float, callback: Callable[[], Awaitable[None]]) -> _Handle:
        handle = _Handle()
        self._timers[handle] = (when, callback)
        self._arm(handle)
        return handle

    def _arm(self, handle: _Handle) -> None:
        loop = asyncio.get_running_loop()
        when, callback = self._timers[handle]

        def fire() -> None:
            self._timers.pop(handle, None)
            if handle.cancelled:
                return
            task = loop.create_task(_guarded(callback))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        handle.inner = loop.call_later(max(0.0, when - self.now()), fire)

    def skip_to_next(self) -> float:
        """Move time to the earliest timer still waiting (it fires now); returns the seconds skipped."""
        for handle in [h for h in self._timers if h.cancelled]:
            del self._timers[handle]
        if not self._timers:
            return 0.0
        skipped = max(0.0, min(when for when, _ in self._timers.values()) - self.now())
        self.offset += skipped
        for handle in list(self._timers):
            assert handle.inner is not None
            handle.inner.cancel()
            self._arm(handle)
        return skipped


LIVE: weakref.WeakSet[SkipClock] = weakref.WeakSet()
"""Every SkipClock of the test session still in use."""


async def pass_the_pause() -> None:
    """The table's pause before a deal passes at once (the bots' clocks jump to their next timer)."""
    await asyncio.sleep(0.05)  # the command that armed it has returned; its timer is set
    for clock in list(LIVE):
        clock.skip_to_next()
