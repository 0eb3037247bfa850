"""A token's budget: calls a second to a platform, handed out by priority (issue 24).

A bot token has one global limit (Discord: 50 requests/s; Telegram: about 30 messages/s). Every table
of the process shares it. :class:`Budget` hands out calls at most ``rate`` a second, the callers of the
lowest priority number first: a player's own cards, then boards, then lines. A caller waits *before*
it takes its message off its table's queue, so that, near the limit, a newer board of the same table
replaces the one waiting (boards coalesce more) instead of every table queueing behind 429s.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable

CARDS, BOARD, LINE = 0, 1, 2
"""Priorities within the budget: a player's own cards first, then boards, then lines."""


class Budget:
    """One token's global budget: at most ``rate`` calls a second, handed out by priority (lowest first, then in
    order of asking). Shared by every channel and private message of a client.

    A sliding window, as the platforms count: at most ``limit`` calls in any ``period`` seconds (``limit`` the
    rate's whole calls a second, all at once if need be: a deal's private cards), never more in any second
    (a token bucket lets its burst *and* a second's rate through in one second: over the limit)."""

    def __init__(self, rate: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self.configure(rate=rate)
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = 0
        self._wake: asyncio.TimerHandle | None = None
        self.waited = 0
        """Calls that had to wait for a token (a sign that the bot runs near its limit)."""

    def configure(self, *, rate: float) -> None:
        self.rate = rate
        limit = int(rate)
        self.window = Window(limit, 1.0, self._monotonic) if limit >= 1 else Window(1, 1.0 / rate, self._monotonic)

    async def take(self, priority: int) -> None:
        """Wait for a token; callers of a lower ``priority`` number are served first."""
        if not self._waiting and self.window.delay() <= 0:
            self.window.note()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._order += 1
        self._waiting.append((priority, self._order, future))
        self._waiting.sort(key=lambda w: (w[0], w[1]))
        self.waited += 1
        self._serve()
        try:
            await future
        except asyncio.CancelledError:
            self._waiting = [w for w in self._waiting if w[2] is not future]
            raise

    def _serve(self) -> None:
        self._wake = None
        while self._waiting and (wait := self.window.delay()) <= 0:
            _, _, future = self._waiting.pop(0)
            if future.done():
                continue
            self.window.note()
            future.set_result(None)
        if self._waiting and self._wake is None:
            self._wake = asyncio.get_running_loop().call_later(max(wait, 0.001), self._serve)


class Window:
    """At most ``limit`` events per ``seconds``: :meth:`delay` says how long to wait first."""

    def __init__(self, limit: int, seconds: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.seconds, self._monotonic = limit, seconds, monotonic
        self._sent: collections.deque[float] = collections.deque()

    def delay(self) -> float:
        now = self._monotonic()
        while self._sent and self._sent[0] <= now - self.seconds:
            self._sent.popleft()
        if len(self._sent) < self.limit:
            return 0.0
        return self._sent[0] + self.seconds - now

    def note(self) -> None:
        self._sent.append(self._monotonic())
