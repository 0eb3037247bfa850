"""Updates a platform may deliver twice, applied once: Telegram's webhook retries, across workers.

Telegram POSTs every update to the webhook until one answer is a 2xx; behind one URL with
several workers, the retry of an update may reach another worker than the first attempt, and
both may be busy with it at once. Before a worker handles an update it *claims* its id in the
database (one row in ``platform_updates``, inserted in its own transaction: the primary key
lets exactly one claim win, whatever the process); after the update is handled the row is
marked done. A delivery of an id already in the table is a duplicate:

- done: answered at once and not applied again (:attr:`Claim.DONE`);
- claimed but not done, recently (:attr:`Claim.BUSY`): another delivery is applying it now;
  the caller waits for it (:meth:`UpdateLog.wait_done`), and tells Telegram to retry later if
  it does not finish;
- claimed but not done for :data:`CLAIM_TTL` seconds (the worker died while applying it): the
  claim is taken over and the update applied (:attr:`Claim.RETAKEN`). What the dead worker had
  already committed of it stays guarded by the bot itself (a press carries its turn, a stale
  turn is refused; a second ``join`` or ``new`` is refused).

Rows older than :data:`RETENTION` are deleted (Telegram keeps an undelivered update 24 hours).
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # the store imports MIGRATION from here
    from .store import Store, Tx

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

CLAIM_TTL: Final = 60.0
"""Seconds after which a claim that is not done is taken to be a dead worker's."""
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

    def __init__(self, store: Store, *, platform: str, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.platform = platform
        self.clock = clock
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
                (float(now), self.platform, int(update_id), float(now - CLAIM_TTL)))
            if retaken is not None:
                return Claim.RETAKEN
            row = await tx.one("SELECT done FROM platform_updates WHERE platform = ? AND update_id = ?",
                               (self.platform, int(update_id)))
            return Claim.DONE if row is not None and int(row[0]) else Claim.BUSY

        claim = await self.store.run_atomic(work)
        if claim is Claim.RETAKEN:
            log.warning("%s update %s: its claim was %ss old and not done; applying it here",
                        self.platform, update_id, int(CLAIM_TTL))
        return claim

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
