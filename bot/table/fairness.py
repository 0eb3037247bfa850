"""Provably fair decks at the bot's tables (FAIRNESS.md, stud8-fair/1).

For each hand N of a table the bot draws a server seed (``secrets``; in script mode,
derived from the script's ``--seed`` so transcripts stay stable), stores it in SQLite and
only then publishes its commitment (SHA-256), labelled with N, on the board: the first
hand's at ``start`` (or when the players a waiting table needed have come, or again after a
restart), hand N+1's on the board of hand N's result; the deal follows after the table's
pause. Hand N is dealt from the deck of the record made of that seed, the table's name and
the player seeds in force at the deal (``seed <text>``), in seat order, with the names shown
on the table. After the hand the seed is revealed with its result (short; the stored hand
file and ``verify N`` carry it whole), or, with ``config reveal=stop``, all together when
the table stops or its tournament ends.

:class:`Fairness` holds the seeds (its own tables, its own queries); the dealer and the
command funnel call it at a few points.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final

from bot.core.i18n import Translator, family
from bot.core.limits import REVEALS
from bot.core.model import Table
from bot.store import Store, Tx, fence
from engine import FairRecord, HandFile, commitment_of
from engine.fair import SERVER_SEED_BYTES
from engine.verify import Finding, Verdict

log = logging.getLogger(__name__)

_CARD_NAMES: Final = family("fair.card", [*range(7), "community"])
"""A player's card by its number in their dealing order (0-6), and the community card."""

MIGRATION: Final = """
CREATE TABLE fair_seeds (
    table_id INTEGER NOT NULL REFERENCES tables (id), hand_no INTEGER NOT NULL,
    server_seed TEXT NOT NULL, commitment TEXT NOT NULL, player_seeds TEXT,
    revealed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, hand_no)
);
CREATE TABLE fair_player_seeds (
    table_id INTEGER NOT NULL REFERENCES tables (id), user_id TEXT NOT NULL, seed TEXT NOT NULL,
    PRIMARY KEY (table_id, user_id)
);
CREATE TABLE fair_tables (
    table_id INTEGER PRIMARY KEY REFERENCES tables (id),
    reveal TEXT NOT NULL DEFAULT 'hand' CHECK (reveal IN ('hand', 'stop'))
);
"""
"""The server seeds of each table's hands (``player_seeds``: JSON of the record, set when the
hand is dealt), the player seeds in force, and each table's reveal setting."""


def table_label(table: Table) -> str:
    """The ``TABLE`` string of the records: the platform and the channel ('console:main')."""
    return f"{table.platform}:{table.channel}"


@dataclass(frozen=True, slots=True)
class Commitment:
    hand_no: int
    commitment: str
    new: bool
    """Drawn just now (not yet published)."""
    server_seed: bytes = field(repr=False, compare=False)
    """The seed committed to (secret until the reveal: never shown, never logged)."""


@dataclass(frozen=True, slots=True)
class _Held:
    """What a table's deal read (see :attr:`Fairness._held`)."""

    table: weakref.ref[Table]
    seeds: dict[str, str]
    """user -> their seed at the table."""
    reveal: str


@dataclass(frozen=True, slots=True)
class Revealed:
    hand_no: int
    commitment: str
    server_seed: str


class Fairness:
    """The server seeds, player seeds and reveal settings of every table, in SQLite."""

    def __init__(self, *, store: Store, script_key: bytes | None = None, files_dir: Path | None = None) -> None:
        self.store = store
        self.script_key = script_key
        """Set in script mode: server seeds are HMAC(script_key, "table:hand"), so a seeded
        transcript is the same every time; None: every seed comes from ``secrets``."""
        self.files_dir = files_dir
        """Where the console writes a hand file for ``verify`` (None: nowhere)."""
        self._stored: dict[int, Commitment] = {}
        """Table id -> the last commitment of the table this process knows to be committed to the
        database (:meth:`stored`). A stored seed never changes and its row is never deleted (in
        cluster mode neither: another process only adds rows), so it needs no reading back; after a
        restart nothing is known and the rows are read."""
        self._held: dict[int, _Held] = {}
        """Table id -> its player seeds and reveal mode as read for the table this process holds in memory
        (the object: a table restored anew is read anew, which covers cluster mode, where another process
        may have held it meanwhile). While this process holds a table only its own
        :meth:`set_player_seed` and :meth:`set_reveal_mode` change them, and those forget them."""

    def _draw(self, table_id: int, hand_no: int) -> bytes:
        if self.script_key is None:
            return secrets.token_bytes(SERVER_SEED_BYTES)
        return hmac.digest(self.script_key, f"{table_id}:{hand_no}".encode(), hashlib.sha256)

    # ---------------------------------------------------------------- seeds of hands

    async def commit(self, tx: Tx, *, table_id: int, hand_no: int) -> Commitment:
        """Hand ``hand_no``'s commitment, drawing and storing its seed in ``tx`` if it has none
        yet (the caller shows it only once ``tx`` is committed, and then tells :meth:`stored`)."""
        known = self._known(table_id, hand_no)
        if known is not None:
            return known
        seed = self._draw(table_id, hand_no)
        # The new row, unless the hand has one already (committed earlier, before a restart say): one
        # round trip, and nothing left for the end of the block to send when this is its last statement.
        row = await tx.one("INSERT INTO fair_seeds (table_id, hand_no, server_seed, commitment) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (table_id, hand_no) DO NOTHING RETURNING commitment",
                           (table_id, hand_no, seed.hex(), commitment_of(seed)))
        if row is not None:
            return Commitment(hand_no=hand_no, commitment=str(row["commitment"]), new=True, server_seed=seed)
        row = await tx.one("SELECT commitment, server_seed FROM fair_seeds WHERE table_id = ? AND hand_no = ?",
                           (table_id, hand_no))
        if row is None:
            raise LookupError(f"table {table_id}: hand #{hand_no}'s seed is neither new nor stored")
        return Commitment(hand_no=hand_no, commitment=str(row["commitment"]), new=False,
                          server_seed=bytes.fromhex(row["server_seed"]))

    def stored(self, *, table_id: int, committed: Commitment) -> None:
        """``committed`` (from :meth:`commit`) is in the database: its transaction has committed. Never
        before: a seed whose transaction was rolled back is not stored, and must be read or drawn again."""
        self._stored[table_id] = Commitment(hand_no=committed.hand_no, commitment=committed.commitment, new=False,
                                            server_seed=committed.server_seed)

    def _known(self, table_id: int, hand_no: int) -> Commitment | None:
        """Hand ``hand_no``'s commitment if this process knows that it is stored."""
        known = self._stored.get(table_id)
        return known if known is not None and known.hand_no == hand_no else None

    async def commit_next(self, table: Table) -> Commitment:
        """The commitment of the table's next hand, stored (committed) before this returns."""
        known = self._known(table.id, table.hand_no + 1)
        if known is not None and fence.active() is None:  # no transaction to learn what is known (in
            return known  # cluster mode one still checks that the table is this process's)
        async with self.store.atomic() as tx:
            committed = await self.commit(tx, table_id=table.id, hand_no=table.hand_no + 1)
        self.stored(table_id=table.id, committed=committed)
        return committed

    async def deal(self, tx: Tx, *, table: Table, hand_no: int, players: list[tuple[str, str]]) -> FairRecord:
        """The record hand ``hand_no`` is dealt from: its committed seed (which must exist) and the
        seeds in force now of ``players`` ((user, name) in seat order), stored in ``tx``."""
        known = self._known(table.id, hand_no)
        if known is not None:  # committed earlier by this process: no need to read it back
            server_seed = known.server_seed
        else:
            row = await tx.one("SELECT server_seed FROM fair_seeds WHERE table_id = ? AND hand_no = ?",
                               (table.id, hand_no))
            if row is None:
                raise LookupError(f"table {table.id}: hand #{hand_no} has no committed seed")
            server_seed = bytes.fromhex(row["server_seed"])
        held = self._held_for(table)
        if held is None:  # the seeds, and the reveal mode the hand's end needs, in one read
            rows = await tx.all("SELECT user_id, seed FROM fair_player_seeds WHERE table_id = ? UNION ALL "
                                "SELECT NULL, reveal FROM fair_tables WHERE table_id = ?", (table.id, table.id))
            held = self._held[table.id] = _Held(
                table=weakref.ref(table, self._forget(table.id)),
                seeds={str(r[0]): str(r[1]) for r in rows if r[0] is not None},
                reveal=next((str(r[1]) for r in rows if r[0] is None), "hand"))
        seeds = held.seeds
        record = FairRecord.for_deal(table=table_label(table), hand_no=hand_no, server_seed=server_seed,
                                     player_seeds=[(name, seeds.get(user, "")) for user, name in players])
        await tx.execute("UPDATE fair_seeds SET player_seeds = ? WHERE table_id = ? AND hand_no = ?",
                         (json.dumps([list(pair) for pair in record.player_seeds], ensure_ascii=False), table.id,
                          hand_no))  # what record.to_dict() writes there, without the rest of it
        return record

    async def record(self, *, table: Table, hand_no: int) -> FairRecord | None:
        """The full record (with its server seed) of a hand already dealt, or None."""
        rows = await self.store.fetch(
            "SELECT server_seed, player_seeds FROM fair_seeds WHERE table_id = ? AND hand_no = ?",
            (table.id, hand_no))
        if not rows or rows[0]["player_seeds"] is None:
            return None
        pairs = [(str(name), str(seed)) for name, seed in json.loads(rows[0]["player_seeds"])]
        return FairRecord.for_deal(table=table_label(table), hand_no=hand_no,
                                   server_seed=bytes.fromhex(rows[0]["server_seed"]), player_seeds=pairs)

    async def mark_revealed(self, tx: Tx, *, table_id: int, hand_no: int) -> None:
        await tx.execute("UPDATE fair_seeds SET revealed = 1 WHERE table_id = ? AND hand_no = ?", (table_id, hand_no))

    async def reveal_all(self, tx: Tx, *, table_id: int) -> list[Revealed]:
        """At a stop: every finished hand's seed not yet revealed, revealed (the hand files
        rewritten with it). A hand not finished (played, or voided by the stop) keeps its seed."""
        rows = await tx.all(
            "SELECT f.hand_no, f.server_seed, f.commitment, h.id, h.hand_file FROM fair_seeds f "
            "JOIN hands h ON h.table_id = f.table_id AND h.hand_no = f.hand_no "
            "WHERE f.table_id = ? AND f.revealed = 0 AND h.status = 'done' AND h.hand_file IS NOT NULL "
            "ORDER BY f.hand_no", (table_id,))
        out = []
        for row in rows:
            data = json.loads(row["hand_file"])
            if isinstance(data.get("fair"), dict):
                data["fair"]["server_seed"] = row["server_seed"]
            await tx.execute("UPDATE hands SET hand_file = ? WHERE id = ?", (json.dumps(data), row["id"]))
            await self.mark_revealed(tx, table_id=table_id, hand_no=row["hand_no"])
            out.append(Revealed(hand_no=row["hand_no"], commitment=row["commitment"], server_seed=row["server_seed"]))
        return out

    # ---------------------------------------------------------------- players and tables

    async def player_seeds(self, table_id: int) -> dict[str, str]:
        rows = await self.store.fetch("SELECT user_id, seed FROM fair_player_seeds WHERE table_id = ?", (table_id,))
        return {str(r["user_id"]): str(r["seed"]) for r in rows}

    async def set_player_seed(self, *, table_id: int, user: str, seed: str) -> None:
        try:
            async with self.store.atomic() as tx:
                await tx.execute(
                    "INSERT INTO fair_player_seeds (table_id, user_id, seed) VALUES (?, ?, ?) "
                    "ON CONFLICT (table_id, user_id) DO UPDATE SET seed = excluded.seed", (table_id, user, seed))
        finally:  # changed (or perhaps, if the commit failed): the next deal reads them
            self._held.pop(table_id, None)

    async def reveal_mode(self, table_id: int) -> str:
        rows = await self.store.fetch("SELECT reveal FROM fair_tables WHERE table_id = ?", (table_id,))
        return str(rows[0]["reveal"]) if rows else "hand"

    def held_reveal_mode(self, table: Table) -> str | None:
        """The table's reveal mode as its last deal here read it (None: not read for this table object)."""
        held = self._held_for(table)
        return held.reveal if held is not None else None

    async def set_reveal_mode(self, *, table_id: int, reveal: str) -> None:
        assert reveal in REVEALS
        try:
            async with self.store.atomic() as tx:
                await tx.execute("INSERT INTO fair_tables (table_id, reveal) VALUES (?, ?) "
                                 "ON CONFLICT (table_id) DO UPDATE SET reveal = excluded.reveal", (table_id, reveal))
        finally:
            self._held.pop(table_id, None)

    def _forget(self, table_id: int) -> Callable[[weakref.ref[Table]], None]:
        """What drops the table's entry once its object is gone (the table was closed, or dropped from
        this process): only that object's entry, not one read since for the table restored anew."""

        def forget(gone: weakref.ref[Table]) -> None:
            held = self._held.get(table_id)
            if held is not None and held.table is gone:
                del self._held[table_id]

        return forget

    def _held_for(self, table: Table) -> _Held | None:
        held = self._held.get(table.id)
        return held if held is not None and held.table() is table else None

    def write_hand_file(self, *, platform: str, table_id: int, hand_no: int, text: str) -> Path | None:
        """The hand file written where the console keeps them, for ``python -m engine.verify``."""
        if self.files_dir is None:
            return None
        path = self.files_dir / f"hand-{platform}-{table_id}-{hand_no}.json"
        try:
            path.write_text(text, encoding="utf-8")
        except OSError:
            log.exception("table %s: writing hand #%s to %s failed", table_id, hand_no, path)
            return None
        return path


# -------------------------------------------------------------------- words


def short_hex(value: str) -> str:
    """A commitment or seed as the channel shows it: its first and last four hex digits.

    >>> short_hex("2fe4" + "0" * 56 + "d4db")
    '2fe4…d4db'
    """
    return f"{value[:4]}…{value[-4:]}"


@lru_cache(maxsize=1024)
def deck_line(tr: Translator, *, no: int, commitment: str, at_stop: bool) -> str:
    """The board's line with a hand's commitment, short (remembered: a board is drawn at every action)."""
    return tr("fair.board_deck_stop" if at_stop else "fair.board_deck", no=no, commitment=short_hex(commitment))


def verdict_text(verdict: Verdict, tr: Translator) -> str:
    """The verdict of :func:`engine.verify.verify_hand_file` in the reader's language."""
    no = verdict.hand_no
    if verdict.finding is Finding.FAIR:
        return tr("fair.verdict_fair", no=no, cards=verdict.cards_checked)
    if verdict.finding is Finding.COMMITMENT:
        return tr("fair.verdict_commitment", no=no)
    if verdict.finding is Finding.PLAYERS:
        return tr("fair.verdict_players", no=no)
    if verdict.finding is Finding.UNDEALT:
        return tr("fair.verdict_undealt", no=no, card=verdict.listed or "?")
    which = tr(_CARD_NAMES[str(verdict.card_index) if verdict.card_index is not None else "community"])
    return tr("fair.verdict_card", no=no, player=verdict.player or "—", which=which, listed=verdict.listed or "?",
              expected=verdict.expected or "?", position=verdict.position if verdict.position is not None else "?")


def revealed_seeds(revealed: list[Revealed]) -> str:
    """The seeds revealed at a stop, one line a hand: '#3: <seed> (SHA-256 <commitment>)'."""
    return "\n".join(f"#{r.hand_no}: {r.server_seed} (SHA-256 {r.commitment})" for r in revealed)


def record_lines(hand_file: HandFile, tr: Translator) -> str:
    """The values a player needs to check the hand by hand: table, hand, commitment, seeds."""
    record = hand_file.fair
    assert record is not None and record.server_seed is not None
    seeds = ", ".join(f"{name}: {json.dumps(seed, ensure_ascii=False)}" for name, seed in record.player_seeds)
    return tr("fair.record", table=record.table, no=record.hand_no, commitment=record.commitment,
              seed=record.server_seed.hex(), seeds=seeds)
