"""Clocks: the real one (asyncio), and a manual one for tests and the console's script mode."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class _Handle:
    __slots__ = ("cancelled", "inner")

    def __init__(self) -> None:
        self.cancelled = False
        self.inner: asyncio.TimerHandle | None = None

    def cancel(self) -> None:
        self.cancelled = True
        if self.inner is not None:
            self.inner.cancel()


class RealClock:
    """time.time(), time.monotonic() and the running event loop; callbacks run as tasks."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def call_at(self, when: float, callback: Callable[[], Awaitable[None]]) -> _Handle:
        loop = asyncio.get_running_loop()
        handle = _Handle()

        def fire() -> None:
            if handle.cancelled:
                return
            task = loop.create_task(_guarded(callback))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        handle.inner = loop.call_later(max(0.0, when - self.now()), fire)
        return handle


async def _guarded(callback: Callable[[], Awaitable[None]]) -> None:
    try:
        await callback()
    except Exception:  # a bug in a timer must not kill the loop
        log.exception("timer callback failed")


class ManualClock:
    """Time moves only when told to; due callbacks run, in order, on :meth:`settle`."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, _Handle, Callable[[], Awaitable[None]]]] = []
        self._seq = itertools.count()
        self._compact_at = 64
        """Sweep cancelled callbacks out when the heap grows past this (a turn timer is
        re-armed at every action: without the sweep, a script that never sleeps keeps them all)."""

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        """The same time as :meth:`now`: it moves only when told to, and never back."""
        return self._now

    def call_at(self, when: float, callback: Callable[[], Awaitable[None]]) -> _Handle:
        handle = _Handle()
        heapq.heappush(self._heap, (when, next(self._seq), handle, callback))
        if len(self._heap) > self._compact_at:
            self._heap = [entry for entry in self._heap if not entry[2].cancelled]
            heapq.heapify(self._heap)
            self._compact_at = max(64, 2 * len(self._heap))
        return handle

    @property
    def pending(self) -> list[float]:
        """When the callbacks still waiting are due."""
        return sorted(when for when, _, h, _ in self._heap if not h.cancelled)

    async def settle(self, *, limit: int = 100_000) -> int:
        """Run every callback due now (and those they schedule for now); return how many ran."""
        ran = 0
        while self._heap and self._heap[0][0] <= self._now:
            _, _, handle, callback = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            ran += 1
            if ran > limit:
                raise RuntimeError("timers keep scheduling themselves: a loop")
            await _guarded(callback)
        return ran

    async def advance(self, seconds: float) -> int:
        """Move time forward, running callbacks as their moments come."""
        target = self._now + seconds
        ran = 0
        while self._heap and self._heap[0][0] <= target:
            self._now = max(self._now, self._heap[0][0])
            ran += await self.settle()
        self._now = target
        ran += await self.settle()
        return ran
