"""Group commit: writes that arrive together share one transaction, each acknowledged after its COMMIT.

A :class:`GroupCommit` owns one writing connection whose statements are awaited (PostgreSQL's;
SQLite's writer answers at once and has :mod:`bot.store.inline` instead). Callers queue either a *block* (an
``atomic()`` body, run in the caller's task while it holds the connection) or a *statement*
(``record_action``'s INSERT, run by the committer). The committer opens a transaction and
gives the connection to each queued item in turn, each inside its own SAVEPOINT: a block that
raises is rolled back to its savepoint (and re-raises at once); the others stay. Once nobody is
waiting (or ``cap`` items are in, or it has taken items for ``max_delay``), it COMMITs, and only
then does every caller of the batch resume: durability before acknowledgement. Consecutive
statements go to the backend together (:meth:`Control.statements`: one round trip for all of them).

If the transaction itself fails (COMMIT refused, a savepoint that cannot be rolled back), every
item of the batch raises :class:`StoreError`: none of them is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol


class StoreError(RuntimeError):
    """The database refused a transaction: nothing of it was committed."""


class StoreConflict(StoreError):
    """A deadlock or serialization failure with another process: the block was rolled back; try it again."""


class StoreDuplicate(StoreError):
    """A unique or primary key violation, on either backend: the row is there already (in cluster mode,
    perhaps written first by another process)."""


class Control(Protocol):
    """What the committer needs of a backend's writing connection."""

    async def ready(self) -> None:
        """Called before each transaction: reconnect if the connection was lost."""

    async def control(self, sql: str, *, now: bool = False) -> None:
        """A transaction-control statement (BEGIN, SAVEPOINT ...); the backend may send it with
        the next statement unless ``now``."""

    async def flush(self) -> None:
        """Send what the backend holds back of the current block (it may defer statements that
        return nothing): their errors are raised here, while the block can still be rolled back."""

    async def rollback_to(self, savepoint: str) -> None:
        """Undo the current block: back to ``savepoint`` (and release it), dropping what is held back."""

    async def statements(self, jobs: Sequence[tuple[str, Sequence[Any]]], savepoint: str, *,
                         commit: bool) -> list[BaseException | None]:
        """Run ``jobs`` in the open transaction, each in its own savepoint named from ``savepoint``,
        then COMMIT if ``commit`` (in the same hop if the backend can); the error of each (None: done)."""

    @property
    def begin(self) -> str:
        """The statement that opens a writing transaction."""


@dataclass(frozen=True, slots=True)
class CommitStats:
    transactions: int
    """Transactions committed."""
    items: int
    """Blocks and statements committed in them."""


class Committer(Protocol):
    """How a store's writes reach its writing connection: :class:`GroupCommit` (a connection in another
    process or thread, awaited) or :class:`~bot.store.inline.InlineCommit` (one that answers at once)."""

    @property
    def stats(self) -> CommitStats: ...

    async def statement(self, sql: str, params: Sequence[Any]) -> None:
        """One statement in the next transaction; returns once that is committed."""

    def block(self) -> contextlib.AbstractAsyncContextManager[None]:
        """The connection for one block, inside its savepoint; the ``async with`` ends after the COMMIT."""

    async def close(self) -> None:
        """Commit what is queued, then stop."""


class _Item:
    """A queued statement: resolved at its COMMIT (a waiter cancelled meanwhile cancels it: the
    statement is committed anyway)."""

    __slots__ = ("committed", "failed", "statement")

    def __init__(self, loop: asyncio.AbstractEventLoop, statement: tuple[str, Sequence[Any]] | None) -> None:
        self.statement = statement
        self.committed: asyncio.Future[None] = loop.create_future()
        self.failed = False


class _Block(_Item):
    """A queued block: its turn with the connection (its savepoint), its end, its COMMIT."""

    __slots__ = ("broken", "finished", "turn")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop, None)
        self.turn: asyncio.Future[str] = loop.create_future()
        self.finished: asyncio.Future[None] = loop.create_future()
        self.broken: BaseException | None = None


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class GroupCommit:
    """The committer of one writing connection (see the module)."""

    def __init__(self, conn: Control, *, cap: int = 256, max_delay: float = 0.025, linger: float = 0.002) -> None:
        self.conn = conn
        self.cap = cap
        """Items in one transaction at most."""
        self.max_delay = max_delay
        """Seconds a transaction takes in more items at most: the first one's wait for its COMMIT is bounded."""
        self.linger = linger
        """Seconds an open transaction waits for one more item when items arrive faster than one a
        ``linger`` (paced load): the batches stay large (fewer COMMITs, less processor time per write)."""
        self._queue: deque[_Item] = deque()
        self._wake = asyncio.Event()
        self._arrived = 0
        """Items queued so far (the arrival rate's numerator)."""
        self._since = (0.0, 0)
        """When the last transaction began, and ``_arrived`` then."""
        self._rate = 0.0
        """Items queued a second lately (smoothed over transactions)."""
        self._size = 0.0
        """Items a transaction lately (smoothed): lingering pays only where several writers are waiting,
        never for a lone writer whose next item comes only after this COMMIT."""
        self._arrival: asyncio.Future[None] | None = None
        """Set by the next item queued while the committer lingers."""
        self._task: asyncio.Task[None] | None = None
        self._names = itertools.count(1)
        self._transactions = 0
        self._items = 0
        self._busy = False

    @property
    def stats(self) -> CommitStats:
        return CommitStats(transactions=self._transactions, items=self._items)

    def _enqueue(self, item: _Item) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="group-commit")
        self._queue.append(item)
        self._arrived += 1
        self._wake.set()
        if self._arrival is not None and not self._arrival.done():
            self._arrival.set_result(None)

    async def statement(self, sql: str, params: Sequence[Any]) -> None:
        """One statement in the next transaction; returns once that is committed."""
        item = _Item(asyncio.get_running_loop(), (sql, params))
        self._enqueue(item)
        await item.committed

    @asynccontextmanager
    async def block(self) -> AsyncIterator[None]:
        """The connection for one block, inside its savepoint; returns after the COMMIT."""
        item = _Block(asyncio.get_running_loop())
        self._enqueue(item)
        try:
            savepoint = await item.turn
        except asyncio.CancelledError:
            if item.turn.done() and not item.turn.cancelled():
                item.failed = True
                await self._undo(item, item.turn.result())
            item.turn.cancel()
            raise
        try:
            yield
            await self.conn.flush()
        except BaseException:
            item.failed = True
            await self._undo(item, savepoint)
            raise
        try:
            await self.conn.control(f"RELEASE SAVEPOINT {savepoint}")
        except BaseException as exc:
            item.broken = exc
            item.finished.set_result(None)
            raise
        item.finished.set_result(None)
        await item.committed

    async def _undo(self, item: _Block, savepoint: str) -> None:
        try:
            await self.conn.rollback_to(savepoint)
        except BaseException as exc:
            item.broken = exc
        finally:
            if not item.finished.done():
                item.finished.set_result(None)

    async def close(self) -> None:
        """Stop the committer once the queue is empty."""
        while self._queue or self._busy:
            await asyncio.sleep(0.001)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        while True:
            while not self._queue:
                self._wake.clear()
                await self._wake.wait()
            self._busy = True
            try:
                await self._batch()
            finally:
                self._busy = False

    def _measure(self, now: float) -> None:
        """The arrival rate, from the items queued since the last transaction began."""
        began, arrived = self._since
        if now > began:
            self._rate = 0.5 * self._rate + 0.5 * (self._arrived - arrived) / (now - began)
        self._since = (now, self._arrived)

    def _lingering(self) -> bool:
        return self._rate * self.linger >= 1 and self._size >= 4

    async def _more(self, until: float) -> bool:
        """Whether another item is queued: whatever is ready to write joins at once; under load (items
        arriving faster than one a ``linger``, several in each transaction lately), the transaction
        waits up to ``linger`` (not past ``until``) for the next one."""
        await asyncio.sleep(0)
        if self._queue:
            return True
        loop = asyncio.get_running_loop()
        wait = min(self.linger, until - loop.time())
        if wait <= 0 or not self._lingering():
            return False
        self._arrival = arrival = loop.create_future()
        timer = loop.call_later(wait, _resolve, arrival)
        try:
            await arrival
        finally:
            timer.cancel()
            self._arrival = None
        return bool(self._queue)

    async def _batch(self) -> None:
        taken: list[_Item] = []
        """Every item of this transaction: resolved at the COMMIT, or failed with it."""
        loop = asyncio.get_running_loop()
        committed = False
        try:
            await self.conn.ready()
            await self.conn.control(self.conn.begin)
            now = loop.time()
            self._measure(now)
            until = now + self.max_delay
            while len(taken) < self.cap and loop.time() < until:
                if not self._queue and not await self._more(until):
                    break
                item = self._queue.popleft()
                if item.statement is not None:
                    first = len(taken)
                    taken.append(item)
                    while True:  # statements held back while more arrive: one round trip for all, the COMMIT with them
                        while self._queue and self._queue[0].statement is not None and len(taken) < self.cap:
                            taken.append(self._queue.popleft())
                        if (self._queue or len(taken) >= self.cap or loop.time() >= until or not self._lingering()
                                or not await self._more(until) or self._queue[0].statement is None):
                            break
                    run = taken[first:]
                    last = not self._queue  # nobody else waiting: the COMMIT goes with them
                    errors = await self.conn.statements([i.statement for i in run if i.statement is not None],
                                                        f"s{next(self._names)}", commit=last)
                    for job, error in zip(run, errors):
                        if error is not None:
                            job.failed = True
                            if not job.committed.done():
                                job.committed.set_exception(error)
                    if last:
                        committed = True
                        break
                    continue
                assert isinstance(item, _Block)
                if item.turn.cancelled():
                    continue
                taken.append(item)
                savepoint = f"b{next(self._names)}"
                await self.conn.control(f"SAVEPOINT {savepoint}")
                item.turn.set_result(savepoint)
                await item.finished
                if item.broken is not None:
                    raise item.broken
            if not committed:
                await self.conn.control("COMMIT", now=True)
        except BaseException as exc:
            with contextlib.suppress(BaseException):  # if the connection is gone, nothing was committed anyway
                await self.conn.control("ROLLBACK", now=True)
            error = exc if isinstance(exc, StoreError) else StoreError(f"the transaction failed: {exc!r}")
            for item in taken:
                for future in (item.turn, item.committed) if isinstance(item, _Block) else (item.committed,):
                    if not future.done():
                        future.set_exception(error)
                        future.exception()  # retrieved by the waiter, or by nobody (cancelled)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        self._size = 0.5 * self._size + 0.5 * len(taken)
        done = [item for item in taken if not item.failed]
        self._transactions += 1
        self._items += len(done)
        for item in done:
            if not item.committed.done():
                item.committed.set_result(None)
