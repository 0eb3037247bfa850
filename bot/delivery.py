"""Every committed event reaches the table, even across a ``kill -9``.

An action is committed before it is played and shown, but what it says to the table
("carol calls 2") waits in the outbox a moment (to stay within the platform's limits):
a crash in that moment would lose the line while the pot keeps the chips. So each hand
has a row in ``announced``: how many of its events are known to have reached the
table. The row is written with the hand's start; :class:`Deliveries` moves it on once
the messenger confirms the lines are out (:class:`~bot.ports.Confirming`; a messenger
without holding sends before ``announce`` returns), and drops it once the hand's last
lines are out. On start, the lines of the events after that count are announced again
(at least once: a crash between sending and marking repeats a line, never loses one).

The same table keeps the platform requests in flight (``pending_answers``): a Discord
interaction whose answer a crash cut off is answered after the restart while its token
lives (see ``adapters/discord/adapter.py``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

from .model import HandSetup
from .ports import Confirming, Messenger, TableAddress
from .store import Store, Tx

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Unannounced:
    """A finished hand whose last lines may not have reached the table."""

    hand_id: int
    setup: HandSetup
    actions: tuple[str, ...]
    events: int
    """Events already announced."""


async def begin(tx: Tx, *, hand_id: int) -> None:
    """A new hand: none of its events announced yet (in the transaction that starts it)."""
    await tx.execute("INSERT OR REPLACE INTO announced (hand_id, events) VALUES (?, 0)", (hand_id,))


async def announced_events(store: Store, hand_id: int) -> int | None:
    """How many of the hand's events reached the table; None: all of them (or the hand predates this)."""
    rows = await store.fetch("SELECT events FROM announced WHERE hand_id = ?", (hand_id,))
    return int(rows[0]["events"]) if rows else None


async def unannounced_finished(store: Store, table_id: int) -> list[Unannounced]:
    """Finished hands of the table whose last lines are not known to be out."""
    rows = await store.fetch(
        "SELECT h.id AS id, h.setup AS setup, a.events AS events FROM hands h JOIN announced a ON a.hand_id = h.id "
        "WHERE h.table_id = ? AND h.status = 'done' ORDER BY h.id", (table_id,))
    out = []
    for row in rows:
        actions = await store.fetch("SELECT action FROM actions WHERE hand_id = ? ORDER BY seq", (row["id"],))
        out.append(Unannounced(hand_id=row["id"], setup=HandSetup.from_json(json.loads(row["setup"])),
                               actions=tuple(r["action"] for r in actions), events=int(row["events"])))
    return out


class Deliveries:
    """Marks each hand's lines as announced once the messenger has them out."""

    def __init__(self, *, store: Store, messenger: Messenger) -> None:
        self.store = store
        self.messenger = messenger
        self._tasks: set[asyncio.Task[None]] = set()

    def track(self, *, table: TableAddress, hand_id: int, events: int, final: bool) -> None:
        """The lines of the hand's first ``events`` events are announced: mark them once they are out
        (``final``: the hand's last lines; its row goes)."""
        task = asyncio.get_running_loop().create_task(self._mark(table, hand_id, events, final))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _mark(self, table: TableAddress, hand_id: int, events: int, final: bool) -> None:
        try:
            if isinstance(self.messenger, Confirming) and not await self.messenger.delivered(table=table):
                return  # not out: announced again after a restart
            if final:
                await self.store.execute("DELETE FROM announced WHERE hand_id = ?", (hand_id,))
            else:
                await self.store.execute("UPDATE announced SET events = MAX(events, ?) WHERE hand_id = ?",
                                         (events, hand_id))
        except Exception:  # the worst outcome is a line said twice after a restart
            log.exception("marking the lines of hand %s as delivered failed", hand_id)

    async def close(self, timeout: float = 5.0) -> None:
        """Let the marks of lines already out be written (the outboxes are drained first); then stop."""
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=timeout)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)


# ---------------------------------------------------------------------- requests in flight


@dataclass(frozen=True, slots=True)
class PendingAnswer:
    """A platform request taken but not yet answered (a Discord interaction and its token)."""

    platform: str
    id: str
    token: str
    user: str
    locale: str | None
    channel: str
    command: str
    received_at: float


async def remember_request(store: Store, request: PendingAnswer) -> None:
    await store.execute(
        "INSERT OR REPLACE INTO pending_answers (platform, id, token, user_id, locale, channel, command, received_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (request.platform, request.id, request.token, request.user, request.locale, request.channel,
         request.command, request.received_at))


async def forget_request(store: Store, *, platform: str, id: str) -> None:
    await store.execute("DELETE FROM pending_answers WHERE platform = ? AND id = ?", (platform, id))


async def pending_requests(store: Store, platform: str) -> list[PendingAnswer]:
    rows = await store.fetch("SELECT * FROM pending_answers WHERE platform = ? ORDER BY received_at", (platform,))
    return [PendingAnswer(platform=r["platform"], id=r["id"], token=r["token"], user=r["user_id"], locale=r["locale"],
                          channel=r["channel"], command=r["command"], received_at=r["received_at"]) for r in rows]


async def action_taken(store: Store, *, platform: str, channel: str, turn: str, user: str) -> bool:
    """Whether ``user`` acted at the turn ``turn`` ('12.7': hand 12, its decision 7) of the channel's table."""
    hand_no, _, seq = turn.partition(".")
    if not (hand_no.isdigit() and seq.isdigit()):
        return False
    rows = await store.fetch(
        "SELECT h.setup AS setup, a.seat_no AS seat_no FROM actions a JOIN hands h ON h.id = a.hand_id "
        "JOIN tables t ON t.id = h.table_id WHERE t.platform = ? AND t.channel = ? AND h.hand_no = ? AND a.seq = ? "
        "ORDER BY t.id DESC LIMIT 1", (platform, channel, int(hand_no), int(seq)))
    if not rows:
        return False
    players = HandSetup.from_json(json.loads(rows[0]["setup"])).players
    return any(p[0] == rows[0]["seat_no"] and p[1] == user for p in players)
