"""Messengers that wrap messengers: route by platform, and coalesce a table's output.

:class:`Router` lets one :class:`~bot.app.StudBot` serve several platforms in
one process: each adapter registers its messenger under its platform name.

:class:`Coalescer` keeps a chatty table within a platform's rate limits: board
edits and public lines of a table are gathered and sent at most once per
``interval`` seconds (the last board wins; lines are joined into one message),
and a final board (the end of a hand) is flushed at once. A board *post* (a new
message) is never delayed, because its reference is needed at once. A board edit
may come as a drawing to make (:meth:`Coalescer.defer_board`): it is drawn when
the flush sends it, so a table that changes ten times between two flushes is drawn
once.

Time comes from a :class:`~bot.core.ports.Clock`: intervals are measured with its
``monotonic()`` reading, and a flush waiting for its moment is a timer of its
``call_at``; on a :class:`~bot.core.clock.ManualClock` a test moves time instead of
sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.core import killpoints
from bot.core.clock import RealClock
from bot.core.ports import (
    BoardView,
    Button,
    Clock,
    Messenger,
    TableAddress,
    TimerHandle,
    confirming,
    deferring,
    noticing,
    prompting,
)

log = logging.getLogger(__name__)


class Router:
    """A Messenger that forwards to the messenger registered for each platform."""

    def __init__(self) -> None:
        self._by_platform: dict[str, Messenger] = {}

    def register(self, platform: str, messenger: Messenger) -> None:
        self._by_platform[platform] = messenger

    def get(self, platform: str) -> Messenger:
        """The messenger registered for ``platform`` (LookupError if none)."""
        try:
            return self._by_platform[platform]
        except KeyError:
            raise LookupError(f"no messenger for platform {platform!r}") from None

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        return await self.get(table.platform).publish_board(table=table, board=board, ref=ref)

    async def defer_board(self, *, table: TableAddress, draw: Callable[[], BoardView], ref: str) -> str | None:
        inner = self.get(table.platform)
        if deferring(inner):
            return await inner.defer_board(table=table, draw=draw, ref=ref)
        return await inner.publish_board(table=table, board=draw(), ref=ref)  # it shows every board: draw it now

    async def announce(self, *, table: TableAddress, text: str) -> None:
        await self.get(table.platform).announce(table=table, text=text)

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return await self.get(platform).send_private(platform=platform, user=user, text=text, image=image)

    async def delivered(self, *, table: TableAddress) -> bool:
        inner = self.get(table.platform)
        return await inner.delivered(table=table) if confirming(inner) else True

    async def post_prompt(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        inner = self.get(table.platform)
        if prompting(inner):
            return await inner.post_prompt(table=table, text=text, buttons=buttons)
        await inner.announce(table=table, text=text)
        return None

    async def close_prompt(self, *, table: TableAddress, ref: str, text: str) -> None:
        inner = self.get(table.platform)
        if prompting(inner):
            await inner.close_prompt(table=table, ref=ref, text=text)

    async def post_notice(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        return await post_notice(self.get(table.platform), table=table, text=text, buttons=buttons)

    async def edit_notice(self, *, table: TableAddress, ref: str, text: str, buttons: tuple[Button, ...]) -> bool:
        return await edit_notice(self.get(table.platform), table=table, ref=ref, text=text, buttons=buttons)


async def post_notice(messenger: Messenger, *, table: TableAddress, text: str,
                      buttons: tuple[Button, ...]) -> str | None:
    """Post a notice through ``messenger`` (:class:`~bot.core.ports.Noticing`); one that cannot gets it as a line
    (no buttons, no reference: its changes come as lines too)."""
    if noticing(messenger):
        return await messenger.post_notice(table=table, text=text, buttons=buttons)
    await messenger.announce(table=table, text=text)
    return None


async def edit_notice(messenger: Messenger, *, table: TableAddress, ref: str, text: str,
                      buttons: tuple[Button, ...]) -> bool:
    """Edit a notice through ``messenger``; False if it cannot (the caller says it as a line instead)."""
    if noticing(messenger):
        return await messenger.edit_notice(table=table, ref=ref, text=text, buttons=buttons)
    return False


class Tally:
    """Lines a messenger holds back: how many were announced, how many are out, and who waits.

    :meth:`wait` returns once every line announced before it was called is out: True, or
    False if the sending of one of those lines failed after the last success before them.
    """

    def __init__(self) -> None:
        self.queued = 0
        self.sent = 0
        self._failed = 0
        self._waiters: list[tuple[int, asyncio.Future[bool]]] = []

    def add(self, count: int) -> None:
        self.queued += count

    def done(self, count: int, *, ok: bool) -> None:
        """``count`` lines (the oldest held) are out, or were given up on."""
        self.sent += count
        if not ok:
            self._failed = self.sent
        waiting = []
        for target, future in self._waiters:
            if target > self.sent:
                waiting.append((target, future))
            elif not future.done():
                future.set_result(target > self._failed)
        self._waiters = waiting

    async def wait(self) -> bool:
        if self.sent >= self.queued:
            return True
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters.append((self.queued, future))
        return await future


@dataclass
class _Pending:
    table: TableAddress
    board: BoardView | Callable[[], BoardView] | None = None
    """The board to send: as drawn, or the drawing to make when it is sent (the last one wins)."""
    ref: str | None = None
    posted: str | None = None
    """The board message as the platform last answered (a post, or an edit that moved it)."""
    replaced: str | None = None
    """The reference that ``posted`` replaced: the core still passing it has not heard of the new one."""
    lines: list[str] = field(default_factory=list)
    last_flush: float = float("-inf")
    """When the last flush ended (the clock's monotonic reading)."""
    timer: TimerHandle | None = None
    """The next flush, waiting for its moment (``interval`` after the last one)."""
    task: asyncio.Task[None] | None = None
    """The flush on its way: about to start (it takes whatever came meanwhile), or sending."""
    sending: bool = False
    """A flush is talking to the platform: never cancel it (a post could be sent twice)."""
    urgent: bool = False
    """A final board came during a send: flush again at once after it."""
    tally: Tally = field(default_factory=lambda: Tally())
    shown: tuple[str | None, BoardView] | None = None
    """The message and the board it shows, as last sent: an edit that would change nothing is left out."""


class Coalescer:
    """Gathers a table's board edits and public lines; sends them at most once per ``interval``."""

    def __init__(self, inner: Messenger, *, interval: float = 1.0, clock: Clock | None = None,
                 moved: Callable[[TableAddress, str], Awaitable[None]] | None = None) -> None:
        self.inner = inner
        self.interval = interval
        self.clock: Clock = clock if clock is not None else RealClock()
        """Measures the intervals (``monotonic()``) and holds the flushes waiting for their moment."""
        self.moved = moved
        """Told at once when a flush shows a table's board under a new reference (the messenger posted a
        new message, say, for the next hand): the core stores it before anything else happens, so that
        a restart or a takeover finds the newest board (bot.app.StudBot.board_moved)."""
        self._tables: dict[str, _Pending] = {}

    def _state(self, table: TableAddress) -> _Pending:
        state = self._tables.get(table.key)
        if state is None:
            state = self._tables[table.key] = _Pending(table=table)
        return state

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        state = self._state(table)
        if ref is None:  # a new message: send what is pending first, then post at once
            await self._flush(state)
            new_ref = await self.inner.publish_board(table=table, board=board, ref=None)
            state.posted, state.replaced = new_ref, None
            state.shown = (new_ref, board)
            state.last_flush = self.clock.monotonic()
            return new_ref
        return self._hold(state, board, ref, now=board.final or board.urgent)

    async def defer_board(self, *, table: TableAddress, draw: Callable[[], BoardView], ref: str) -> str | None:
        """A board edit drawn only when the flush sends it (a final board comes to :meth:`publish_board`)."""
        return self._hold(self._state(table), draw, ref, now=False)

    def _hold(self, state: _Pending, board: BoardView | Callable[[], BoardView], ref: str, *,
              now: bool) -> str | None:
        # The newest reference: the one posted here if the core is only behind it; the core's own if it
        # knows another (another process showed the table meanwhile, and this one took it back since).
        posted = state.posted
        state.board, state.ref = board, posted if posted is not None and ref in (posted, state.replaced) else ref
        self._schedule(state, now=now)
        return state.ref

    async def announce(self, *, table: TableAddress, text: str) -> None:
        state = self._state(table)
        state.lines.append(text)
        state.tally.add(1)
        self._schedule(state, now=False)

    async def delivered(self, *, table: TableAddress) -> bool:
        """Wait until the lines announced so far for ``table`` are sent (also by the messenger
        behind, if it too holds lines back); False if sending some of them failed."""
        ok = await self._state(table).tally.wait()
        if confirming(self.inner):
            ok = await self.inner.delivered(table=table) and ok
        return ok

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return await self.inner.send_private(platform=platform, user=user, text=text, image=image)

    async def post_prompt(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """Straight to the messenger behind (a request is rare, and its buttons are its own message)."""
        if prompting(self.inner):
            return await self.inner.post_prompt(table=table, text=text, buttons=buttons)
        await self.announce(table=table, text=text)
        return None

    async def close_prompt(self, *, table: TableAddress, ref: str, text: str) -> None:
        if prompting(self.inner):
            await self.inner.close_prompt(table=table, ref=ref, text=text)

    async def post_notice(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """A notice after what is pending (the lines before it come first), at once."""
        state = self._state(table)
        await self._flush(state)
        state.last_flush = self.clock.monotonic()
        return await post_notice(self.inner, table=table, text=text, buttons=buttons)

    async def edit_notice(self, *, table: TableAddress, ref: str, text: str, buttons: tuple[Button, ...]) -> bool:
        return await edit_notice(self.inner, table=table, ref=ref, text=text, buttons=buttons)

    def _schedule(self, state: _Pending, *, now: bool) -> None:
        task = state.task
        if task is not None and not task.done():  # a flush on its way takes it
            if now and state.sending:
                state.urgent = True  # flushed again right after the send in flight
            return
        if state.timer is not None:  # a flush waiting for its moment takes it
            if not now:
                return
            state.timer.cancel()  # go now instead
            state.timer = None
        self._start(state, 0.0 if now else state.last_flush + self.interval - self.clock.monotonic())

    def _start(self, state: _Pending, wait: float) -> None:
        """Flush in ``wait`` seconds: a timer until then (no task, no future), a task to send."""
        if wait <= 0:
            state.task = asyncio.get_running_loop().create_task(self._send(state))
            return

        async def due() -> None:
            # A clock may run its callback a step after the moment (RealClock: as a task): by then a final
            # board or a drain may have cancelled this timer and flushed already. Only the timer still
            # waiting starts the flush.
            if state.timer is not timer:
                return
            state.timer = None
            state.task = asyncio.get_running_loop().create_task(self._send(state))

        # The wait is measured on the monotonic reading; the clock's call_at takes a moment of now().
        timer = state.timer = self.clock.call_at(self.clock.now() + wait, due)

    async def _send(self, state: _Pending) -> None:
        try:
            await self._flush(state)
        except Exception:
            log.exception("sending the board of %s failed", state.table.key)
        if state.board is not None or state.lines:  # more came while we were sending
            urgent, state.urgent = state.urgent, False
            self._start(state, 0.0 if urgent else state.last_flush + self.interval - self.clock.monotonic())

    async def _flush(self, state: _Pending) -> None:
        lines, state.lines = state.lines, []
        board = self._drawn(state)  # now, with the lines: the board of the same moment
        if board is not None and not lines and state.shown == (state.ref, board):
            board = None  # drawn again, unchanged (lines always go with their board: Telegram folds them in)
        state.sending = True
        try:
            if lines:
                try:
                    await self.inner.announce(table=state.table, text="\n".join(lines))
                except BaseException:
                    state.tally.done(len(lines), ok=False)
                    raise
                state.tally.done(len(lines), ok=True)
            if board is not None:
                ref = await self.inner.publish_board(table=state.table, board=board, ref=state.ref)
                if ref != state.ref:
                    state.replaced = state.ref
                state.posted = ref
                state.shown = (ref, board)
                if ref is not None and ref != state.ref and self.moved is not None:
                    killpoints.reached("board.posted")
                    try:
                        await self.moved(state.table, ref)
                    except Exception:  # stored at the table's next change instead
                        log.exception("storing the new board of %s failed", state.table.key)
        finally:
            state.sending = False
        if lines or board is not None:
            state.last_flush = self.clock.monotonic()

    def _drawn(self, state: _Pending) -> BoardView | None:
        """The board pending, drawn if it is a drawing (a failure is logged: the next change draws again)."""
        board, state.board = state.board, None
        if board is None or isinstance(board, BoardView):
            return board
        try:
            return board()
        except Exception:
            log.exception("drawing the board of %s failed", state.table.key)
            return None

    async def drain(self) -> None:
        """Send everything pending now (at shutdown). A send in flight is awaited, never cut
        off (a board post cut off could be sent twice); a flush only waiting is sent now."""
        for state in list(self._tables.values()):
            while True:
                if state.timer is not None:  # only waiting: sent below
                    state.timer.cancel()
                    state.timer = None
                task = state.task
                if task is None or task.done():
                    break
                if state.sending:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(task)  # it logs its own failure
                else:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            await self._flush(state)
