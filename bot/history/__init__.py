"""A stored hand told street by street (``hand N``), replayed in a page (``replay N``, bot.history.replayer)
and exported for trackers (``export``, the replayer page beside the trackers' files).

Both read the finished hands of the table in the asker's channel (the open one, else the
last one closed there) and replay each stored hand file through the engine. Both answers
are private to the asker: the story shows the asker's own down cards (and anyone else's
only where they were shown at the showdown); the exports are written from the asker's
viewpoint (their down cards on their ``Dealt to`` lines), PokerStars text and PHH.

A hand of Stud or Razz (GAMES.md) names its game before its header, and so does every hand of a
table that deals several games (a mix, a sit-and-go of another game); its pots read as the game
divides them (bot.text.results).

Amounts won: a hand keeps the settlement it was paid with (its JSON summary). Where that
differs from what the engine pays on a replay today (hands settled before the rule-11
pots), the story tells the stored settlement, and says so.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Protocol

from bot.core.errors import Refusal
from bot.core.i18n import EN, Translator, family
from bot.core.limits import MAX_EXPORT, MAX_REPLAY
from bot.core.model import HandSetup
from bot.core.ports import Attachment, Inbound, Reply
from bot.history.exports import HandMeta, Tournament, phh_text, pokerstars_text, safe_names
from bot.history.replayer import EquityOf, ReplayHand, engine_equity, replay_page
from bot.store import MAX_INTEGER, Row, Store
from bot.text import render, results
from bot.text.grammar import Command
from engine import Hand, HandFile, Stakes, replay_hand
from engine.events import AntePosted, CardDealt, Event, HandShown, PotAwarded, StreetBegan
from engine.games import Game


@dataclass(frozen=True, slots=True)
class StoredHand:
    """One finished hand as stored: its number, who sat where, the replayed hand, its settlement."""

    number: int
    """The hand's number at its table (what the board and ``hand N`` say)."""
    hand_id: int
    """The hand's number among every hand of the database: an export's hand number, since trackers
    key a hand by site and number alone (hands of several tables in one tracker must not meet)."""
    table_id: int
    setup: HandSetup
    hand: Hand
    summary: str
    started_at: float
    hand_file: str
    """The stored hand file (HAND_FORMAT.md), its ``fair`` record included."""
    table_game: str = "stud8"
    """What the table deals now (``config game=``): a table that deals another game than Stud Hi-Lo, or the mix,
    names every hand's game, Stud Hi-Lo's too (G8)."""

    @property
    def names_game(self) -> bool:
        """Whether the hand's lines name its game: a hand of Stud or Razz, or any hand of such a table."""
        return self.hand.game is not Game.STUD8 or self.table_game != "stud8"

    @property
    def revealed(self) -> bool:
        """Whether the hand's server seed is revealed in its hand file: until then (``config reveal=stop``)
        the file, which lists every player's cards, folded down cards included, is nobody's to see."""
        fair = json.loads(self.hand_file).get("fair")
        return isinstance(fair, dict) and fair.get("server_seed") is not None

    def engine_seat(self, user: str) -> int | None:
        return next((i for i, p in enumerate(self.setup.players) if p.user == user), None)

    @property
    def seat_numbers(self) -> tuple[int, ...]:
        """Each player's table seat, counted from 1 as players say it."""
        return tuple(p.seat_no + 1 for p in self.setup.players)


_NOT_DEALT = family("refuse", ("export_not_dealt", "replay_not_dealt"))
"""The refusal of 'export' and of 'replay' to a player who was dealt into no finished hand here."""
_PAGE = 500
"""Setups read at a time while looking for a player's hands."""


class TournamentBook(Protocol):
    """What an export needs to know of the sit-and-gos (bot.tourney's ``Tourneys`` is one)."""

    async def played_at(self, table_id: int) -> tuple[int, int] | None:
        """(number, buy-in) of the sit-and-go played at the table; None at a cash table."""

    def level_of(self, stakes: Stakes) -> int | None:
        """The level of a sit-and-go whose stakes these are."""


class HandArchive:
    """The finished hands of a channel's table, read from the store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def table_id(self, *, platform: str, channel: str) -> int | None:
        """The channel's table: the open one, else the last one closed there."""
        found = await self._table(platform=platform, channel=channel)
        return found[0] if found is not None else None

    async def _table(self, *, platform: str, channel: str) -> tuple[int, str] | None:
        """(id, game) of the channel's table (:meth:`table_id`): what it deals, a sit-and-go's game at a
        sit-and-go's table (whose own game is its level's)."""
        rows = await self.store.fetch(
            "SELECT t.id AS id, COALESCE((SELECT s.game FROM tournaments s WHERE s.table_id = t.id), t.game) AS game "
            "FROM tables t WHERE t.platform = ? AND t.channel = ? ORDER BY t.open DESC, t.id DESC LIMIT 1",
            (platform, channel))
        return (int(rows[0]["id"]), str(rows[0]["game"])) if rows else None

    async def hands(self, *, platform: str, channel: str, number: int | None = None,
                    last: int = 1, player: str | None = None) -> list[StoredHand]:
        """Hand ``number``, or the ``last`` finished hands (oldest first); with ``player``, only hands
        that player was dealt into (the last ``last`` of those)."""
        found = await self._table(platform=platform, channel=channel)
        if found is None or (number is not None and not 0 <= number <= MAX_INTEGER):
            return []
        table_id, table_game = found
        columns = "id, hand_no, setup, hand_file, summary, started_at"
        if number is not None:
            rows = await self.store.fetch(
                f"SELECT {columns} FROM hands WHERE table_id = ? AND hand_no = ? AND status = 'done'",
                (table_id, number))
        elif player is None:
            rows = await self.store.fetch(
                f"SELECT {columns} FROM hands WHERE table_id = ? AND status = 'done' ORDER BY hand_no DESC LIMIT ?",
                (table_id, last))
        else:
            rows = await self._played(table_id=table_id, player=player, last=last, columns=columns)
        stored = [StoredHand(number=int(r["hand_no"]), hand_id=int(r["id"]), table_id=table_id,
                             setup=HandSetup.from_json(json.loads(r["setup"])),
                             hand=replay_hand(HandFile.from_json(r["hand_file"])), summary=str(r["summary"] or ""),
                             started_at=float(r["started_at"]), hand_file=str(r["hand_file"]),
                             table_game=table_game) for r in rows]
        return sorted(stored, key=lambda s: s.number)

    async def _played(self, *, table_id: int, player: str, last: int, columns: str) -> list[Row]:
        """The last ``last`` finished hands of the table that ``player`` was dealt into: the setups are read
        a page at a time, newest first, and only the hands chosen are read whole."""
        chosen: list[int] = []
        below = MAX_INTEGER
        while len(chosen) < last:
            page = await self.store.fetch(
                "SELECT id, hand_no, setup FROM hands WHERE table_id = ? AND status = 'done' AND hand_no < ? "
                "ORDER BY hand_no DESC LIMIT ?", (table_id, below, _PAGE))
            chosen += [int(r["id"]) for r in page
                       if any(p.user == player for p in HandSetup.from_json(json.loads(r["setup"])).players)]
            if len(page) < _PAGE:
                break
            below = int(page[-1]["hand_no"])
        rows: list[Row] = []
        for hand_id in chosen[:last]:
            rows += await self.store.fetch(f"SELECT {columns} FROM hands WHERE id = ?", (hand_id,))
        return rows

    async def last_number(self, *, platform: str, channel: str) -> int | None:
        found = await self.hands(platform=platform, channel=channel, last=1)
        return found[0].number if found else None


class History:
    """``hand N`` and ``export [N | last N] [all]``: private answers built from the archive."""

    def __init__(self, store: Store, *, tournaments: TournamentBook | None = None,
                 equity: EquityOf | None = None) -> None:
        self.archive = HandArchive(store)
        self.tournaments = tournaments
        self.equity = equity if equity is not None else engine_equity()
        """Each street's equities at an all-in, for the replayer page (None: the page has no equity line)."""

    async def handle(self, msg: Inbound, command: Command, tr: Translator) -> Reply:
        try:
            if command.name == "hand":
                return await self._hand(msg, command, tr)
            if command.name == "replay":
                return await self._replay(msg, command, tr)
            return await self._export(msg, command, tr)
        except Refusal as exc:
            return Reply(exc.text(tr), private=True, ok=False)

    async def _find(self, msg: Inbound, *, number: int | None, last: int = 1,
                    player: str | None = None, asked: str = "export") -> list[StoredHand]:
        found = await self.archive.hands(platform=msg.platform, channel=msg.channel, number=number, last=last,
                                         player=player)
        if found:
            return found
        latest = await self.archive.last_number(platform=msg.platform, channel=msg.channel)
        if latest is None:
            raise Refusal("refuse.no_hands_here")
        if player is not None:
            raise Refusal(_NOT_DEALT[f"{asked}_not_dealt"], last=latest)
        raise Refusal("refuse.no_such_hand", no=number, last=latest)

    async def _hand(self, msg: Inbound, command: Command, tr: Translator) -> Reply:
        number = int(command.args[0]) if command.args else None
        [stored] = await self._find(msg, number=number)
        return Reply(story(stored, viewer=msg.user, tr=tr), private=True)

    async def _export(self, msg: Inbound, command: Command, tr: Translator) -> Reply:
        """A hand asked for by number is exported whoever played it; otherwise the asker's own last hands
        (a hand history without its hero means nothing to a tracker), or everyone's with ``all``."""
        last = int(command.options.get("last", 1))
        number = int(command.args[0]) if command.args else None
        mine = None if number is not None or command.options.get("all") else msg.user
        found = await self._find(msg, number=number, last=min(last, MAX_EXPORT), player=mine)
        tournament = None
        if self.tournaments is not None:
            tournament = await self.tournaments.played_at(found[0].table_id)
        levels = self.tournaments.level_of if self.tournaments is not None else None
        files = await asyncio.to_thread(  # an all-in's equity takes up to half a second: off the event loop
            partial(export_files, found, viewer=msg.user, table=f"Stud {msg.platform} {msg.channel}",
                    tournament=tournament, level_of=levels, tr=tr, equity=self.equity))
        first, final = found[0].number, found[-1].number
        text = tr("reply.exported_many" if len(found) > 1 else "reply.exported_one" if found[0].revealed
                  else "reply.exported_one_hidden", no=first, first=first, last=final, count=len(found))
        return Reply(text, private=True, files=files)

    async def _replay(self, msg: Inbound, command: Command, tr: Translator) -> Reply:
        """'replay N': hand N whoever played it (from the asker's seat if they did); 'replay' and
        'replay last N': the asker's own last hands, all in one page with a picker."""
        number = int(command.args[0]) if command.args else None
        last = min(int(command.options.get("last", 1)), MAX_REPLAY)
        found = await self._find(msg, number=number, last=last, player=None if number is not None else msg.user,
                                 asked="replay")
        page = await asyncio.to_thread(partial(replay_file, found, viewer=msg.user, tr=tr, equity=self.equity))
        first, final = found[0].number, found[-1].number
        text = tr("reply.replay_many" if len(found) > 1 else "reply.replay_one", no=first, first=first, last=final,
                  count=len(found))
        return Reply(text, private=True, files=(page,))


# ------------------------------------------------------------------ the replayer page


def replay_hand_of(stored: StoredHand, *, viewer: str | None, tr: Translator) -> ReplayHand:
    """What the replayer page shows of a stored hand: from ``viewer``'s seat, paid as it was settled."""
    hand = stored.hand
    settled = _stored_settlement(hand, stored.summary)
    lines = (tr("story.settled_then", result=results.history_line(tr, stored.summary, name_game=stored.names_game)),) \
        if settled else None
    me = stored.engine_seat(viewer) if viewer is not None else None
    return ReplayHand(number=stored.number, hand=hand, seats=stored.seat_numbers, name_game=stored.names_game,
                      viewer=hand.names[me] if me is not None else None, result_lines=lines,
                      nets=tuple(_nets(hand, stored.summary)) if settled else None)


def replay_file(found: Sequence[StoredHand], *, viewer: str | None, tr: Translator,
                equity: EquityOf | None = None) -> Attachment:
    """The replayer page of ``found`` (oldest first) as a file: ``stud-hand-N.html`` or ``stud-hands-A-B.html``."""
    first, last = found[0].number, found[-1].number
    name = f"stud-hand-{first}.html" if len(found) == 1 else f"stud-hands-{first}-{last}.html"
    page = replay_page([replay_hand_of(s, viewer=viewer, tr=tr) for s in found], tr=tr, equity=equity)
    return Attachment(name=name, data=page.encode(), mime="text/html")


# ------------------------------------------------------------------ the story


def story(stored: StoredHand, *, viewer: str | None, tr: Translator) -> str:
    """The hand street by street, in ``tr``'s language, showing ``viewer``'s down cards (if any)."""
    hand, names = stored.hand, list(stored.hand.names)
    me = stored.engine_seat(viewer) if viewer is not None else None
    s = stored.setup.stakes
    header = tr("story.header", no=stored.number, ante=s.ante, bring_in=s.bring_in, small=s.small_bet, big=s.big_bet)
    if stored.names_game:  # G8: a line names the hand's game (at a Stud Hi-Lo table, its stories read as before)
        header = tr("result.story_header", game=results.game_name(tr, hand.game.value), header=header)
    lines = [header,
             tr("story.seats", seats=", ".join(
                 tr("story.seat", seat=seat, name=name, chips=chips)
                 for seat, name, chips in zip(stored.seat_numbers, names, hand.starting_stacks, strict=True)))]
    antes = [e for e in hand.events if isinstance(e, AntePosted)]
    if antes:
        lines.append(tr("story.antes", antes=", ".join(f"{names[e.seat]} {e.amount}" for e in antes)))
    mine: dict[int, list[str]] = {}
    for e in hand.events:
        if isinstance(e, CardDealt) and e.seat == me and not e.face_up:
            mine.setdefault(e.street, []).append(e.card.pretty)
    settled = _stored_settlement(hand, stored.summary)
    showdown = False
    for event in hand.events:
        if isinstance(event, HandShown) and not showdown:
            showdown = True
            lines.append(tr("story.showdown"))
        if isinstance(event, PotAwarded) and settled is not None:
            continue  # the stored settlement is told instead, below
        if isinstance(event, StreetBegan) and event.street == 3:
            lines.append(tr("story.third"))
        lines += render.describe(_one(event), hand, names, tr)
        if isinstance(event, StreetBegan) and event.street in mine:
            lines.append(tr("story.your_down", cards=" ".join(mine[event.street])))
    if settled is not None:
        lines.append(tr("story.settled_then", result=results.history_line(tr, stored.summary,
                                                                          name_game=stored.names_game)))
    elif stored.summary and not stored.summary.startswith("{"):
        lines.append(tr("story.recorded", result=results.history_line(tr, stored.summary)))
    nets = _nets(hand, stored.summary if settled is not None else None)
    lines.append(tr("story.net", nets=", ".join(f"{name} {net:+d}" if net else f"{name} 0"
                                               for name, net in zip(names, nets, strict=True))))
    return "\n".join(lines)


def _one(event: Event) -> Sequence[Event]:
    return (event,)


def _won(hand: Hand) -> list[int]:
    won = [0] * hand.seat_count
    for award in hand.pot_results:
        for seat, chips in award.shares.items():
            won[seat] += chips
    return won


def _stored_settlement(hand: Hand, summary: str) -> dict[str, tuple[int, int]] | None:
    """The stored (won, net) of each player when it differs from the replay's; None when it agrees
    (or the hand kept no JSON settlement)."""
    try:
        data = json.loads(summary) if summary.startswith("{") else None
        players = {str(n): (int(w), int(net)) for n, w, net in data["players"]} if data else None
    except (ValueError, TypeError, KeyError):
        return None
    if players is None:
        return None
    replayed = {name: (won, hand.stacks[s] - hand.starting_stacks[s])
                for s, (name, won) in enumerate(zip(hand.names, _won(hand), strict=True))}
    return None if players == replayed else players


def _nets(hand: Hand, summary: str | None) -> list[int]:
    if summary is not None:
        stored = _stored_settlement(hand, summary)
        if stored is not None:
            return [stored.get(name, (0, 0))[1] for name in hand.names]
    return [hand.stacks[s] - hand.starting_stacks[s] for s in range(hand.seat_count)]


# ------------------------------------------------------------------ exports


def export_files(found: Sequence[StoredHand], *, viewer: str, table: str, tournament: tuple[int, int] | None = None,
                 level_of: Callable[[Stakes], int | None] | None = None, tr: Translator = EN,
                 equity: EquityOf | None = None) -> tuple[Attachment, ...]:
    """PokerStars text and PHH of ``found`` (oldest first) from ``viewer``'s seat: one safe name per
    player across every hand of the export, each player at their real table seat, each hand numbered
    by its number in the database; and for one hand, its hand file (JSON, HAND_FORMAT.md) with its
    ``fair`` record, for ``python -m engine.verify``, once its server seed is revealed (before, the
    file would show the cards the seed still hides).

    ``tournament``: (number, buy-in) of the sit-and-go the hands were played in, whose level each
    hand's stakes tell (``level_of``); its hands are written as tournament hands.

    Beside them, the replayer page (bot.history.replayer) of the export's last :data:`MAX_REPLAY` hands,
    in ``tr``'s language."""
    names = safe_names(name for stored in found for name in stored.hand.names)
    stars, phh = [], []
    for stored in found:
        me = stored.engine_seat(viewer)
        played_in = None
        if tournament is not None:
            level = level_of(stored.setup.stakes) if level_of is not None else None
            played_in = Tournament(number=tournament[0], buyin=tournament[1], level=level or 1)
        meta = HandMeta(number=stored.hand_id, table=table, played_at=datetime.fromtimestamp(stored.started_at, UTC),
                        viewer=stored.hand.names[me] if me is not None else None, names=names,
                        seats=stored.seat_numbers, table_id=stored.table_id, tournament=played_in)
        stars.append(pokerstars_text(stored.hand, meta))
        phh.append(phh_text(stored.hand, meta))
    first, last = found[0].number, found[-1].number
    if len(found) == 1:
        base, phh_file = f"stud-hand-{first}", phh[0] + "\n"
        suffix = "phh"
    else:
        base = f"stud-hands-{first}-{last}"
        phh_file = "\n\n".join(f"[{i}]\n{text}" for i, text in enumerate(phh, 1)) + "\n"
        suffix = "phhs"
    files: tuple[Attachment, ...] = (
        Attachment(name=f"{base}.txt", data=("\n\n\n".join(stars) + "\n").encode(), mime="text/plain"),
        Attachment(name=f"{base}.{suffix}", data=phh_file.encode(), mime="text/plain"))
    if len(found) == 1 and found[0].revealed:  # the file the check reads as stored (the record's own values)
        text = json.dumps(json.loads(found[0].hand_file), ensure_ascii=False, indent=2) + "\n"
        files += (Attachment(name=f"{base}.json", data=text.encode(), mime="application/json"),)
    return (*files, replay_file(found[-MAX_REPLAY:], viewer=viewer, tr=tr, equity=equity))
