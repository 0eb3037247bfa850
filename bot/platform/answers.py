"""Platform requests in flight (a Discord interaction taken, its answer owed) and what a late answer
needs to know of the tables: kept in the store so that a restart answers every request it took."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.core.model import HandSetup
from bot.store import Store


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


class Answers:
    """The platform requests in flight and what answering one late needs to know, in the store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def remember(self, request: PendingAnswer) -> None:
        """Keep a request taken but not yet answered (a restart answers it)."""
        await self.store.execute(
            "INSERT INTO pending_answers (platform, id, token, user_id, locale, channel, command, received_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (platform, id) DO UPDATE SET token = excluded.token, "
            "user_id = excluded.user_id, locale = excluded.locale, channel = excluded.channel, "
            "command = excluded.command, received_at = excluded.received_at",
            (request.platform, request.id, request.token, request.user, request.locale, request.channel,
             request.command, request.received_at))

    async def forget(self, *, platform: str, id: str) -> None:
        """The request is answered."""
        await self.store.execute("DELETE FROM pending_answers WHERE platform = ? AND id = ?", (platform, id))

    async def pending(self, platform: str) -> list[PendingAnswer]:
        """The platform's requests taken and not answered, oldest first."""
        rows = await self.store.fetch("SELECT * FROM pending_answers WHERE platform = ? ORDER BY received_at",
                                      (platform,))
        return [PendingAnswer(platform=r["platform"], id=r["id"], token=r["token"], user=r["user_id"],
                              locale=r["locale"], channel=r["channel"], command=r["command"],
                              received_at=r["received_at"]) for r in rows]

    async def channel_community(self, *, platform: str, channel: str) -> str | None:
        """The community of the last table opened in a channel ('discord:<server id>'); None if there was none."""
        rows = await self.store.fetch(
            "SELECT community FROM tables WHERE platform = ? AND channel = ? ORDER BY id DESC LIMIT 1",
            (platform, channel))
        return str(rows[0]["community"]) if rows else None

    async def board_ref_of(self, *, platform: str, channel: str) -> str | None:
        """The reference of the board message of the channel's open table, as stored (whichever process holds it)."""
        rows = await self.store.fetch("SELECT board_ref FROM tables WHERE platform = ? AND channel = ? AND open = 1",
                                      (platform, channel))
        return str(rows[0]["board_ref"]) if rows and rows[0]["board_ref"] is not None else None

    async def action_taken(self, *, platform: str, channel: str, turn: str, user: str) -> bool:
        """Whether ``user`` acted at the turn ``turn`` ('12.7': hand 12, its decision 7) of the channel's table."""
        hand_no, _, seq = turn.partition(".")
        if not (hand_no.isdigit() and seq.isdigit()):
            return False
        rows = await self.store.fetch(
            "SELECT h.setup AS setup, a.seat_no AS seat_no FROM actions a JOIN hands h ON h.id = a.hand_id "
            "JOIN tables t ON t.id = h.table_id WHERE t.platform = ? AND t.channel = ? AND h.hand_no = ? "
            "AND a.seq = ? ORDER BY t.id DESC LIMIT 1", (platform, channel, int(hand_no), int(seq)))
        if not rows:
            return False
        players = HandSetup.from_json(json.loads(rows[0]["setup"])).players
        return any(p.seat_no == rows[0]["seat_no"] and p.user == user for p in players)
