"""Work in flight, counted, so that a stop can wait for it before the database closes.

>>> import asyncio
>>> async def demo() -> tuple[bool, bool]:
...     work = Work()
...     gate = asyncio.Event()
...     async def command() -> None:
...         with work.track():
...             await gate.wait()
...     task = asyncio.create_task(command())
...     await asyncio.sleep(0)
...     busy = not await work.idle(timeout=0.01)  # the command is still running
...     gate.set()
...     done = await work.idle(timeout=1)
...     await task
...     return busy, done
>>> asyncio.run(demo())
(True, True)
"""

from __future__ import annotations

import asyncio
import gc
from typing import Final

GC_THRESHOLDS: Final = (50_000, 20, 100)
"""The cyclic garbage collector's thresholds in a serving process (Python's own: 700, 10, 10)."""


def tune_gc() -> None:
    """Collect cyclic garbage less often in a serving process.

    Nearly everything a table allocates is freed by reference counting; the cycle collector
    only has to find the rest, yet by default it runs every 700 allocations and sweeps the
    older generations often, over every table in memory. ``python -m bench.bot`` measures
    12-14% less processor time per action with 1,000 tables at these thresholds; the cost is
    that cyclic garbage waits longer (tens of thousands of objects at most) before it is freed.
    """
    gc.set_threshold(*GC_THRESHOLDS)


class Work:
    """A count of the commands and timer callbacks in progress."""

    def __init__(self) -> None:
        self._count = 0
        self._idle: asyncio.Event | None = None

    @property
    def count(self) -> int:
        return self._count

    def track(self) -> _Tracked:
        """Count the block as work in flight while it runs (``with work.track():``)."""
        return _Tracked(self)

    def _done(self) -> None:
        self._count -= 1
        if self._count == 0 and self._idle is not None:
            self._idle.set()

    async def idle(self, *, timeout: float) -> bool:
        """Wait until no work is in flight (True), or ``timeout`` seconds (False)."""
        if self._count == 0:
            return True
        if self._idle is None or self._idle.is_set():
            self._idle = asyncio.Event()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return self._count == 0
        return True


class _Tracked:
    """A block of :meth:`Work.track` (a class, not a generator: it runs for every command)."""

    __slots__ = ("work",)

    def __init__(self, work: Work) -> None:
        self.work = work

    def __enter__(self) -> None:
        self.work._count += 1

    def __exit__(self, *exc: object) -> None:
        self.work._done()
