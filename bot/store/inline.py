"""Group commit for a connection that answers at once: SQLite in the event loop's own thread.

A SQLite statement on a file in WAL mode takes microseconds: a COMMIT appends the pages it
changed to the WAL file (``synchronous=NORMAL``: written to the operating system, so a killed
process loses nothing, without an fsync). Sent to another thread (aiosqlite), the same
statement costs a queue, a wake-up of that thread, a callback back into the loop and the
lock they share, some 20 times the statement itself (``python -m bench.bot`` measures both).
So the SQLite store runs its writes here, in the loop's thread, and :class:`InlineCommit`
groups them:

- a block (``atomic()``) or a statement (``record_action``) takes the connection, opens the
  transaction if none is open (``BEGIN IMMEDIATE``), runs in its own savepoint and gives
  the connection back: nobody else's writes come between its statements;
- whatever ran in the same turn of the loop shares one transaction: its COMMIT is scheduled
  for the next turn (``call_soon``), and only after it do the writers resume, each with its
  write durable: durability before acknowledgement;
- a block that awaits something else keeps the connection meanwhile: the others wait their
  turn, and the transaction stays open for them (up to ``max_delay``), as it does for that block;
- nothing here ever waits for a lock on the loop: the connection has no busy timeout, and a
  ``BEGIN IMMEDIATE`` refused because another process is writing is tried again after an
  ``asyncio.sleep`` (for up to ``busy_timeout`` seconds).

If the COMMIT fails, or the database undoes the transaction on its own (a full disk, an I/O
error), every writer of that transaction gets :class:`StoreError`: none of it is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections import deque
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

from bot.store.batch import CommitStats, StoreError

Run = Callable[[str, Sequence[Any]], object]
"""Runs one statement on the connection, now (raising what the database raises)."""


def _busy(exc: BaseException) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED, extended codes included (the primary code is the low byte)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and code is not None and code & 0xFF in (
        sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class InlineCommit:
    """The committer of a connection whose statements complete without suspending (see the module).

    ``run`` executes a statement; ``in_transaction`` tells whether the database still has the
    transaction open (it may roll it back on its own after some errors); ``committed`` is
    called after each COMMIT (the store checkpoints its WAL from it).
    """

    def __init__(self, *, run: Run, in_transaction: Callable[[], bool], begin: str = "BEGIN IMMEDIATE",
                 busy_timeout: float = 5.0, max_delay: float = 0.025, linger: float = 0.005,
                 committed: Callable[[], None] | None = None) -> None:
        self._run = run
        self._in_transaction = in_transaction
        self._begin = begin
        self.busy_timeout = busy_timeout
        self.max_delay = max_delay
        self.linger = linger
        """Seconds a transaction stays open for more writers when transactions lately had ``crowd`` writers
        or more (many tables acting at once): a COMMIT writes every page its writes touched to the WAL, so
        fewer, larger ones cost less per write. A lone writer (whose next write waits for this COMMIT)
        is committed in the next turn of the loop."""
        self.crowd = 4
        self._size = 0.0
        """Writers per transaction lately (smoothed)."""
        """Seconds a transaction takes in more blocks while blocks wait for the connection, at most."""
        self._committed = committed
        self._held = False
        """A block (or statement) has the connection."""
        self._waiting: deque[asyncio.Future[None]] = deque()
        """Blocks waiting for the connection, in their order of arrival (woken together by _release)."""
        self._woken = 0
        """Blocks woken by _release that have not run yet: the transaction waits for them."""
        self._open = False
        """A transaction is open (BEGIN sent, no COMMIT yet)."""
        self._opened_at = 0.0
        self._acks: list[asyncio.Future[None]] = []
        """The writers of the open transaction, resumed at its COMMIT."""
        self._due: asyncio.Handle | None = None
        """The COMMIT scheduled for the next turn of the loop."""
        self._commit_after_release = False
        self._transactions = 0
        self._items = 0

    @property
    def stats(self) -> CommitStats:
        return CommitStats(transactions=self._transactions, items=self._items)

    # ------------------------------------------------------------------ the connection

    async def _acquire(self) -> None:
        """The connection, in a transaction (opened if need be); the caller must :meth:`_release` it."""
        while self._held:
            turn = asyncio.get_running_loop().create_future()
            self._waiting.append(turn)
            try:
                await turn  # woken by _release: try again (whoever runs first takes it)
            except asyncio.CancelledError:
                if turn in self._waiting:
                    self._waiting.remove(turn)
                elif turn.done() and not turn.cancelled():
                    self._woken -= 1
                    self._commit_if_free()
                raise
            self._woken -= 1
        self._held = True
        if not self._open:
            try:
                await self._begin_transaction()
            except BaseException:
                self._release()
                raise

    async def _begin_transaction(self) -> None:
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.busy_timeout
        pause = 0.001
        while True:
            try:
                self._run(self._begin, ())
            except sqlite3.Error as exc:
                if not _busy(exc) or loop.time() >= give_up:
                    raise StoreError(f"could not begin a transaction: {exc}") from exc
                await asyncio.sleep(pause)  # another process is writing: the loop goes on meanwhile
                pause = min(2 * pause, 0.05)
                continue
            self._open = True
            self._opened_at = loop.time()
            if self._due is None:  # whatever the blocks do (a block that fails writes nothing): it ends
                if self._size >= self.crowd:  # many writers lately: let the transaction take in more
                    self._due = loop.call_later(self.linger, self._commit_soon)
                else:
                    self._due = loop.call_soon(self._commit_soon)
            return

    def _release(self) -> None:
        """Give the connection back, and wake every block waiting for it: they run in their order, in the
        next turn of the loop, each taking it in turn, unless one keeps it across an await (the others
        wait again). They join the open transaction, unless it is older than ``max_delay``: then the
        COMMIT due goes first."""
        self._held = False
        if self._waiting and self._commit_after_release and \
                asyncio.get_running_loop().time() - self._opened_at >= self.max_delay:
            self._commit()
        waiting, self._waiting = self._waiting, deque()
        for turn in waiting:
            if not turn.done():
                self._woken += 1
                turn.set_result(None)
        self._commit_if_free()

    def _commit_if_free(self) -> None:
        """The COMMIT that came due while the connection was busy, once nobody holds it or is about to."""
        if self._commit_after_release and not (self._held or self._waiting or self._woken):
            self._commit()

    # ------------------------------------------------------------------ writers

    async def statement(self, sql: str, params: Sequence[Any]) -> None:
        """One statement in the open transaction; returns once that is committed. A statement the
        database refuses raises its error at once (SQLite undoes that statement alone)."""
        await self._acquire()
        try:
            self._run(sql, params)
        except BaseException as exc:
            self._after_error(exc)
            self._release()
            raise
        ack = self._ack()
        self._release()
        await ack

    def block(self) -> _Block:
        """The connection for one block, inside its savepoint; the ``async with`` ends after the COMMIT."""
        return _Block(self)

    def _control(self, sql: str) -> None:
        """A savepoint's statement for the block holding the connection; if it fails, the block
        gives the connection back and fails with :class:`StoreError`."""
        try:
            self._run(sql, ())
        except BaseException as exc:
            self._after_error(exc)
            self._release()
            raise StoreError(f"{sql} failed: {exc!r}") from exc

    def _ack(self) -> asyncio.Future[None]:
        """A future resolved at the COMMIT of the open transaction (scheduled when it began)."""
        ack: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._acks.append(ack)
        return ack

    def _after_error(self, exc: BaseException) -> None:
        """After a statement failed: if the database rolled the whole transaction back on its own, the
        writers that were waiting for its COMMIT learn that nothing of theirs is durable."""
        if self._open and not self._in_transaction():
            self._open = False
            self._fail(StoreError(f"the database rolled the transaction back: {exc!r}"))

    # ------------------------------------------------------------------ the COMMIT

    def _commit_soon(self) -> None:
        self._due = None
        self._commit_after_release = True
        self._commit_if_free()  # else once the blocks holding or waiting for the connection are done

    def _commit(self) -> None:
        self._commit_after_release = False
        if not self._open:
            return
        acks, self._acks = self._acks, []
        self._open = False
        try:
            self._run("COMMIT", ())
        except BaseException as exc:
            self._acks = acks
            self._abort(StoreError(f"the transaction failed: {exc!r}"))
            return
        self._transactions += 1
        self._items += len(acks)
        self._size = 0.5 * self._size + 0.5 * len(acks)
        for ack in acks:
            if not ack.done():
                ack.set_result(None)
        if self._committed is not None:
            self._committed()

    def _abort(self, error: StoreError) -> None:
        """Roll the open transaction back: none of its writers is acknowledged."""
        if self._in_transaction():
            with contextlib.suppress(sqlite3.Error):  # the connection is gone: nothing was committed anyway
                self._run("ROLLBACK", ())
        self._open = False
        self._fail(error)

    def _fail(self, error: StoreError) -> None:
        acks, self._acks = self._acks, []
        for ack in acks:
            if not ack.done():
                ack.set_exception(error)
                ack.exception()  # retrieved by the writer, or by nobody (cancelled)

    async def close(self) -> None:
        """Commit what is open, once nobody holds or waits for the connection."""
        while self._held or self._waiting:
            await asyncio.sleep(0.001)
        if self._due is not None:
            self._due.cancel()
            self._due = None
        self._commit()


class _Block:
    """One block of :meth:`InlineCommit.block` (a class, not a generator: it runs for every write)."""

    __slots__ = ("group",)
    savepoint = "block"
    """One block holds the connection at a time: one name, one prepared statement."""

    def __init__(self, group: InlineCommit) -> None:
        self.group = group

    async def __aenter__(self) -> None:
        group = self.group
        await group._acquire()
        group._control(f"SAVEPOINT {self.savepoint}")

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        group = self.group
        if exc is not None:
            try:
                if group._open and group._in_transaction():
                    group._run(f"ROLLBACK TO SAVEPOINT {self.savepoint}", ())
                    group._run(f"RELEASE SAVEPOINT {self.savepoint}", ())
                else:
                    group._after_error(exc)
            except BaseException as undo:
                group._abort(StoreError(f"could not undo a block: {undo!r}"))
            finally:
                group._release()
            return  # the block's exception goes on
        group._control(f"RELEASE SAVEPOINT {self.savepoint}")
        ack = group._ack()
        group._release()
        await ack
