"""Fencing: the writes for a table commit only while this process holds its lease.

In cluster mode (``STUDBOT_INSTANCE`` set, see :mod:`bot.cluster.cluster`) every command and timer
callback for a table runs with that table's :class:`Fence` set for its task. The store
checks it at the start of every transaction (:meth:`bot.store.Store.atomic`), in the same
transaction as the writes: a process that lost the lease (another one took the table after
it stopped renewing) has its transaction rolled back with :class:`LeaseLost` instead of
writing over the new holder's state.

The fence belongs to the task that set it: tasks spawned meanwhile (the delivery marks
written in the background, say) inherit the context variable but not the fence.

>>> import asyncio
>>> async def demo() -> tuple[bool, bool]:
...     fence = Fence(owner="w1", table_id=7, epoch=3)
...     with fenced(fence):
...         mine = active() is fence
...         child = await asyncio.create_task(_active_elsewhere())
...     return mine, child
>>> async def _active_elsewhere() -> bool:
...     return active() is not None
>>> asyncio.run(demo())
(True, False)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol


class LeaseLost(Exception):
    """This process no longer holds the table's lease (with the epoch it took it at): the
    transaction is rolled back and the table is dropped from memory."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id}: the lease is held by another process now")
        self.table_id = table_id


class TableMoved(Exception):
    """The table was dropped from this process's memory while the command waited for it."""


@dataclass
class Fence:
    """The lease a task's writes are made under: (table, owner, epoch). ``table_id`` None:
    no table yet (a 'new' being created sets it, with the lease it takes)."""

    owner: str
    table_id: int | None
    epoch: int | None
    task: asyncio.Task[Any] | None = None
    writes: int = 0
    """Transactions begun under it (the lease found held): a command lost midway is not run again."""


_FENCE: ContextVar[Fence | None] = ContextVar("studbot_fence", default=None)

CHECK_SQL = ("UPDATE table_leases SET epoch = epoch WHERE table_id = ? AND owner = ? AND epoch = ? "
             "RETURNING epoch")
"""The check, first in every fenced transaction. An UPDATE, not a SELECT: on PostgreSQL it locks
the lease row until the commit, so a takeover (an UPDATE of the same row) waits for the writes made
under the old epoch to commit, then sees them; on SQLite the transaction holds the write lock anyway."""


def active() -> Fence | None:
    """The fence of the running task, if it set one."""
    fence = _FENCE.get()
    if fence is None or fence.task is not _current_task():
        return None
    return fence


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


class _Queries(Protocol):
    async def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any: ...


async def check(tx: _Queries) -> None:
    """In a transaction just begun: raise :class:`LeaseLost` unless the running task's fence
    (if any) still holds its table's lease. Nothing to do outside cluster mode."""
    fence = active()
    if fence is None or fence.table_id is None:
        return
    if await tx.one(CHECK_SQL, (fence.table_id, fence.owner, fence.epoch)) is None:
        raise LeaseLost(fence.table_id)
    fence.writes += 1


def is_fenced() -> bool:
    """Whether the running task's writes are fenced (then every write goes through a transaction)."""
    fence = active()
    return fence is not None and fence.table_id is not None


@contextlib.contextmanager
def fenced(fence: Fence | None) -> Iterator[None]:
    """Run the block's writes under ``fence`` (None: under none, for the lease's own statements)."""
    if fence is not None:
        fence.task = _current_task()
    token = _FENCE.set(fence)
    try:
        yield
    finally:
        _FENCE.reset(token)
