"""The stats rows of a settled cash-table hand, written by a settlement hook (:class:`StatsRecorder`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from bot.core.model import HandSetup
from bot.stats import rows
from bot.store import Tx
from bot.table.runtime import Runtime, TableHooks


class StatsRecorder(TableHooks):
    """At each settlement of a cash-table hand, in its transaction: one ``hand_players`` row per player
    (:func:`bot.stats.rows.record_hand`). A sit-and-go's hands have none: tournament chips are not money."""

    async def settled(self, rt: Runtime, tx: Tx, *, setup: HandSetup, stacks: Sequence[int],
                      now: float) -> Callable[[], Awaitable[None]] | None:
        if rt.table.tournament is None and rt.hand is not None and rt.hand_id is not None:
            await rows.record_hand(tx, hand=rt.hand, hand_id=rt.hand_id, community=rt.table.community,
                                   players=setup.players, now=now)
        return None
