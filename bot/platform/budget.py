"""A token's budget: calls a second to a platform, handed out by priority (issue 24).

A bot token has one global limit (Discord: 50 requests/s; Telegram: about 30 messages/s). Every table
of the process shares it. :class:`Budget` hands out calls at most ``rate`` a second, the callers of the
lowest priority number first: a player's own cards, then boards, then lines. A caller waits *before*
it takes its message off its table's queue, so that, near the limit, a newer board of the same table
replaces the one waiting (boards coalesce more) instead of every table queueing behind 429s.

A platform counts a call when it *arrives*, the bot when it *takes* its token: between the two, a loaded
event loop, an upload, a retry. A call sent through :meth:`Budget.slot` (or :meth:`Window.note` ``held=True``) counts as
in flight until it is answered, then for a whole window from its answer: the answer comes after the
arrival, so the platform's window of any call never holds more than the bot's did when it let it go.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

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
        self._waiting: list[tuple[int, int, asyncio.Future[Event], bool]] = []
        self._order = 0
        self._wake: asyncio.TimerHandle | None = None
        self.waited = 0
        """Calls that had to wait for a token (a sign that the bot runs near its limit)."""

    def configure(self, *, rate: float) -> None:
        self.rate = rate
        limit = int(rate)
        self.window = Window(limit, 1.0, self._monotonic) if limit >= 1 else Window(1, 1.0 / rate, self._monotonic)

    @contextlib.asynccontextmanager
    async def slot(self, priority: int) -> AsyncIterator[None]:
        """A token for the call made inside: it counts as in flight until the block ends, then a window on.

        >>> async def send(budget: Budget) -> None:
        ...     async with budget.slot(CARDS):
        ...         ...  # the request: counted until its answer is in
        """
        event = await self.take(priority, held=True)
        try:
            yield
        finally:
            self.release(event)

    def release(self, event: Event) -> None:
        """The call of a held token is answered (:meth:`take` ``held=True``): a window from now, then free."""
        self.window.done(event)
        if self._waiting:
            self._serve()

    async def take(self, priority: int, *, held: bool = False) -> Event:
        """Wait for a token; callers of a lower ``priority`` number are served first. ``held``: the call counts
        until :meth:`release` (or use :meth:`slot`)."""
        if not self._waiting and self.window.delay() <= 0:
            return self.window.note(held=held)
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        self._order += 1
        self._waiting.append((priority, self._order, future, held))
        self._waiting.sort(key=lambda w: (w[0], w[1]))
        self.waited += 1
        self._serve()
        try:
            return await future
        except asyncio.CancelledError:
            self._waiting = [w for w in self._waiting if w[2] is not future]
            if future.done() and not future.cancelled():  # granted as it was cancelled: give it back
                self.window.done(future.result())
            raise

    def _serve(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
        self._wake = None
        while self._waiting and (wait := self.window.delay()) <= 0:
            _, _, future, held = self._waiting.pop(0)
            if future.done():
                continue
            future.set_result(self.window.note(held=held))
        if self._waiting:  # a call in flight that ends sooner serves again (slot)
            self._wake = asyncio.get_running_loop().call_later(max(wait, 0.001), self._serve)


class Event:
    """One call in a :class:`Window`: it counts until ``until`` (the clock's reading)."""

    __slots__ = ("until",)

    def __init__(self, until: float) -> None:
        self.until = until


HOLD_AT_MOST = 60.0
"""Seconds a held call counts before its answer at most (a call whose end was never told)."""


class Window:
    """At most ``limit`` events per ``seconds``: :meth:`delay` says how long to wait first.

    >>> now = [0.0]
    >>> window = Window(1, 1.0, monotonic=lambda: now[0])
    >>> sent = window.note(); window.delay()
    1.0
    >>> now[0] = 1.0; flying = window.note(held=True)  # a call on its way: it counts until answered
    >>> now[0] = 5.0; window.delay() > 1
    True
    >>> window.done(flying); window.delay()  # answered now: it counts for a second from now
    1.0
    """

    def __init__(self, limit: int, seconds: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.seconds, self._monotonic = limit, seconds, monotonic
        self._events: list[Event] = []

    def delay(self) -> float:
        now = self._monotonic()
        self._events = [e for e in self._events if e.until > now]
        if len(self._events) < self.limit:
            return 0.0
        ends = sorted(e.until for e in self._events)
        return ends[len(ends) - self.limit] - now

    def note(self, *, held: bool = False) -> Event:
        """An event now; ``held``: it counts until :meth:`done` (at most :data:`HOLD_AT_MOST` s), then a window on."""
        now = self._monotonic()
        event = Event(now + (HOLD_AT_MOST if held else 0.0) + self.seconds)
        self._events.append(event)
        return event

    def done(self, event: Event) -> None:
        """The call of ``event`` is answered: it counts for ``seconds`` from now (never longer than it would have)."""
        event.until = min(event.until, self._monotonic() + self.seconds)

    def settle(self) -> None:
        """Every call still in flight is answered (a sender that sends one call at a time)."""
        now = self._monotonic()
        for event in self._events:
            event.until = min(event.until, now + self.seconds)
