"""Updates a platform may deliver twice, applied once: Telegram's webhook retries, across workers.

Telegram POSTs every update to the webhook until one answer is a 2xx; behind one URL with
several workers, the retry of an update may reach another worker than the first attempt, and
both may be busy with it at once. Before a worker handles an update it *claims* its id in the
database (one row in ``platform_updates``, inserted in its own transaction: the primary key
lets exactly one claim win, whatever the process); after the update is handled the row is
marked done. A delivery of an id already in the table is a duplicate:

- done: answered at once and not applied again (:attr:`Claim.DONE`);
- claimed but not done, recently (:attr:`Claim.BUSY`): another delivery is applying it now;
  the caller waits for it (:meth:`UpdateLog.settle`), and tells Telegram to retry later if
  it does not finish;
- claimed but not done for the claim's time to live (the worker's lease, :data:`CLAIM_TTL` by
  default: the worker died while applying it, since a live worker renews its claim every third
  of it, :meth:`UpdateLog.keep`): the claim is taken over and the update applied
  (:attr:`Claim.RETAKEN`), within the lease, not a minute later.

An update's effect and its done mark commit together: the delivery applying an update runs in
:func:`applying` (``Inbound.update_id``, carried to the table's holder through the cluster inbox),
and the transaction that stores the player's action marks the update done in it
(:func:`mark_applied`). So a worker killed after the action was committed, by itself or by the
holder it forwarded to, leaves the update done: its retry is answered at once and not applied
again (a typed ``/check`` carries no turn: applied twice it would be a second check, at the
player's next turn). What else a dead worker had committed of an update stays guarded by the bot
itself (a second ``join`` or ``new`` is refused).

Rows older than :data:`RETENTION` are deleted (Telegram keeps an undelivered update 24 hours).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
from collections.abc import Callable, Collection, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

from bot.store import Store, Tx

log = logging.getLogger(__name__)

MIGRATION: Final = """
CREATE TABLE platform_updates (
    platform TEXT NOT NULL,
    update_id INTEGER NOT NULL,
    received_at REAL NOT NULL,
    claimed_at REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, update_id)
);
CREATE INDEX platform_updates_received ON platform_updates (received_at)
"""

CLAIM_TTL: Final = 6.0
"""Seconds after which a claim that is not done (nor renewed) is taken to be a dead worker's: by
default the default lease (a worker passes its ``STUDBOT_LEASE_SECONDS``)."""
RETENTION: Final = 2 * 24 * 3600.0
"""Seconds an update id is kept (Telegram gives up on an update after 24 hours)."""
PRUNE_EVERY: Final = 600.0
"""Seconds between two prunings by one process."""


class Claim(enum.Enum):
    NEW = "new"
    """First delivery: this worker applies it."""
    RETAKEN = "retaken"
    """A dead worker's claim, taken over: this worker applies it."""
    BUSY = "busy"
    """Another delivery is applying it right now."""
    DONE = "done"
    """Applied already."""

    @property
    def apply(self) -> bool:
        return self in (Claim.NEW, Claim.RETAKEN)


class UpdateLog:
    """Claims and marks update ids of one platform in ``platform_updates``."""

    def __init__(self, store: Store, *, platform: str, clock: Callable[[], float] = time.time,
                 ttl: float = CLAIM_TTL) -> None:
        self.store = store
        self.platform = platform
        self.clock = clock
        self.ttl = ttl
        self._pruned_at: float | None = None

    async def claim(self, update_id: int) -> Claim:
        """Claim ``update_id`` for this worker (committed when this returns; run again if the transaction
        conflicted with another process's, as two workers claiming the same ids in a batch may)."""
        now = self.clock()
        await self._prune(now)

        async def work(tx: Tx) -> Claim:
            won = await tx.one(
                "INSERT INTO platform_updates (platform, update_id, received_at, claimed_at, done) "
                "VALUES (?, ?, ?, ?, 0) ON CONFLICT DO NOTHING RETURNING update_id",
                (self.platform, int(update_id), float(now), float(now)))
            if won is not None:
                return Claim.NEW
            retaken = await tx.one(
                "UPDATE platform_updates SET claimed_at = ? WHERE platform = ? AND update_id = ? AND done = 0 "
                "AND claimed_at < ? RETURNING update_id",
                (float(now), self.platform, int(update_id), float(now - self.ttl)))
            if retaken is not None:
                return Claim.RETAKEN
            row = await tx.one("SELECT done FROM platform_updates WHERE platform = ? AND update_id = ?",
                               (self.platform, int(update_id)))
            return Claim.DONE if row is not None and int(row[0]) else Claim.BUSY

        claim = await self.store.run_atomic(work)
        if claim is Claim.RETAKEN:
            log.warning("%s update %s: its claim was %ss old and not done; applying it here",
                        self.platform, update_id, self.ttl)
        return claim

    async def keep(self, update_ids: Collection[int]) -> None:
        """This worker is still applying these updates: their claims are not a dead worker's (run every
        third of the time to live, for every update it is applying, in one statement)."""
        if not update_ids:
            return
        ids = [int(u) for u in update_ids]

        async def work(tx: Tx) -> None:
            await tx.execute(f"UPDATE platform_updates SET claimed_at = ? WHERE platform = ? AND done = 0 "
                             f"AND update_id IN ({', '.join('?' * len(ids))})",
                             (float(self.clock()), self.platform, *ids))

        await self.store.run_atomic(work)

    async def settle(self, update_id: int, *, timeout: float, every: float = 0.1) -> Claim:
        """Wait (polling: the delivery applying it may be another process's) until the update is done, or
        its claim is found dead and taken over here: DONE, RETAKEN, or BUSY after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            claim = await self.claim(update_id)
            if claim is not Claim.BUSY or time.monotonic() >= deadline:
                return claim
            await asyncio.sleep(every)

    async def done(self, update_id: int) -> None:
        """The update is applied: a later delivery of it is a duplicate."""
        async def work(tx: Tx) -> None:
            await tx.execute("UPDATE platform_updates SET done = 1 WHERE platform = ? AND update_id = ?",
                             (self.platform, int(update_id)))

        await self.store.run_atomic(work)

    async def is_done(self, update_id: int) -> bool:
        rows = await self.store.fetch("SELECT done FROM platform_updates WHERE platform = ? AND update_id = ?",
                                      (self.platform, int(update_id)))
        return bool(rows) and bool(int(rows[0][0]))

    async def wait_done(self, update_id: int, *, timeout: float, every: float = 0.05) -> bool:
        """Wait (polling: the delivery applying it may be another process's) until the update is done."""
        deadline = time.monotonic() + timeout
        while not await self.is_done(update_id):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(every)
        return True

    async def _prune(self, now: float) -> None:
        if self._pruned_at is not None and now - self._pruned_at < PRUNE_EVERY:
            return
        self._pruned_at = now

        async def work(tx: Tx) -> None:
            await tx.execute("DELETE FROM platform_updates WHERE platform = ? AND received_at < ?",
                             (self.platform, float(now - RETENTION)))

        await self.store.run_atomic(work)


# ---------------------------------------------------------------------- an update's effect, once


@dataclass
class Applying:
    """The platform update a task is applying (its id in ``platform_updates``)."""

    platform: str
    update_id: int
    task: asyncio.Task[Any] | None
    marked: bool = False
    """Marked done already, in the transaction of this delivery's first action."""


_APPLYING: ContextVar[Applying | None] = ContextVar("studbot_applying", default=None)


@contextlib.contextmanager
def applying(platform: str, update_id: int | None) -> Iterator[Applying | None]:
    """Run the block (one command) as the delivery of this update (None: of no update)."""
    key = None if update_id is None else Applying(platform=platform, update_id=int(update_id), task=_current_task())
    token = _APPLYING.set(key)
    try:
        yield key
    finally:
        _APPLYING.reset(token)


def active() -> Applying | None:
    """The update the running task applies, if any (tasks it spawned do not inherit it: a timer's
    action is nobody's update)."""
    key = _APPLYING.get()
    if key is None or key.task is not _current_task():
        return None
    return key


def pending() -> Applying | None:
    """The update this delivery is applying, if none of its effects has marked it done yet: the one to
    mark (:func:`mark_applied`) in the transaction of the effect that a retry must not repeat."""
    key = active()
    return None if key is None or key.marked else key


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


async def mark_applied(tx: Tx, key: Applying) -> bool:
    """In the transaction that stores the update's effect: mark the update done there. False if an
    earlier delivery of it did (its effect is stored: do not apply it again). An update nobody claimed
    (no row: it did not come through a webhook) is not marked."""
    row = await tx.one("UPDATE platform_updates SET done = 1 WHERE platform = ? AND update_id = ? AND done = 0 "
                       "RETURNING update_id", (key.platform, key.update_id))
    if row is not None:
        return True
    known = await tx.one("SELECT 1 FROM platform_updates WHERE platform = ? AND update_id = ?",
                         (key.platform, key.update_id))
    return known is None
