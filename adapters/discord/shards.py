"""Discord shards: which shards this process runs, and how fast it may IDENTIFY them.

``DISCORD_SHARD_COUNT`` and ``DISCORD_SHARD_IDS`` (bot/core/config.py) split the gateway between
processes: each process runs discord.py's :class:`discord.AutoShardedClient` with its own
shard ids, and Discord sends the events of a guild to shard ``(guild_id >> 22) % count`` and
direct messages to shard 0 only. Nothing the bot sends depends on the shard: boards, lines
and DMs go out over REST to partial messageables (adapters/discord/messenger.py), so any
process may send to any channel and any user, whichever process holds the guild's shard.

Discord allows one IDENTIFY per 5 seconds per bucket (``shard_id % max_concurrency``, from
``GET /gateway/bot``); :class:`IdentifyPacer` waits for exactly that, instead of discord.py's
flat 5 seconds before every shard after the first.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

IDENTIFY_WINDOW = 5.0
"""Seconds between two IDENTIFYs of one bucket (Discord's rate limit)."""


@dataclass(frozen=True)
class ShardPlan:
    """The shards of this process, out of ``count`` shards across every process."""

    count: int
    ids: tuple[int, ...]

    @classmethod
    def of(cls, *, count: int | None, ids: tuple[int, ...] | None) -> ShardPlan | None:
        """The plan of the settings; None when the bot runs unsharded."""
        if count is None:
            return None
        return cls(count=count, ids=ids if ids is not None else tuple(range(count)))

    @property
    def has_direct_messages(self) -> bool:
        """Direct messages reach shard 0 only: does this process run it?"""
        return 0 in self.ids

    def runs(self, guild_id: int | None) -> bool:
        """Whether this process runs the shard of the guild (of direct messages, with None)."""
        return shard_of(guild_id, self.count) in self.ids

    def describe(self) -> str:
        dms = "direct messages here" if self.has_direct_messages else "direct messages on another process"
        return f"shards {','.join(map(str, self.ids))} of {self.count} ({dms})"


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard Discord sends a guild's events to; shard 0 for direct messages.

    >>> shard_of(700000000000000001, 2), shard_of(700000000004194305, 2), shard_of(None, 4)
    (1, 0, 0)
    """
    return 0 if guild_id is None else (guild_id >> 22) % count


def guild_of(community: str | None) -> int | None:
    """The server id of a table's community ('discord:<id>'); None for anything else (a DM, no table)."""
    if community is None or not community.startswith("discord:"):
        return None
    tail = community.removeprefix("discord:")
    return int(tail) if tail.isdigit() else None


class IdentifyPacer:
    """Waits before an IDENTIFY until its bucket's last one is :data:`IDENTIFY_WINDOW` seconds old."""

    def __init__(self, *, max_concurrency: int = 1, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.max_concurrency = max(1, max_concurrency)
        self._clock = clock
        self._sleep = sleep
        self._last: dict[int, float] = {}
        self._lock = asyncio.Lock()

    async def wait(self, shard_id: int) -> float:
        """Wait for the shard's turn to IDENTIFY; returns the seconds waited."""
        bucket = shard_id % self.max_concurrency
        async with self._lock:
            last = self._last.get(bucket)
            delay = 0.0 if last is None else max(0.0, last + IDENTIFY_WINDOW - self._clock())
            if delay > 0:
                log.info("shard %d waits %.1fs to identify (bucket %d)", shard_id, delay, bucket)
                await self._sleep(delay)
            self._last[bucket] = self._clock()
        return delay
