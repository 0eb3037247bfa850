"""One table held by this process (:class:`Runtime`), the tables held (:class:`Tables`, the one way to
open a table), and the Protocols through which features and the cluster take part in a table's life.

Nothing here knows the funnel (bot/app.py), the cluster (bot/cluster) or a feature (bot/tourney,
bot/stats): they plug in through :class:`TableHooks`, :class:`TableGuard` and :class:`LocalBot`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple, Protocol

from bot.core.config import Settings
from bot.core.errors import Refusal
from bot.core.i18n import Translator, language_of, translator
from bot.core.lifecycle import Work
from bot.core.limits import DEFAULT_TIMEBANK
from bot.core.model import HandSetup, Seat, Table, TableClocks
from bot.core.ports import BoardView, Clock, Inbound, Reply, TableAddress, TimerHandle, channel_key
from bot.store import Store, Tx
from bot.store.fence import TableMoved
from engine import FairRecord, Hand
from engine.stakes import Stakes


class _Cast(NamedTuple):
    """The players of a hand's setup, read once: their names in seat order, and each user's first seat."""

    players: object
    names: list[str]
    seats: dict[str, int]


@dataclass
class Runtime:
    """A table held by this process: its state in memory, the hand in progress, its timers."""

    table: Table
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    hand: Hand | None = None
    hand_id: int | None = None
    setup: HandSetup | None = None
    deadline: float | None = None
    turn_timer: TimerHandle | None = None
    next_timer: TimerHandle | None = None
    seen: int = 0
    """Events of the hand already rendered."""
    fair: FairRecord | None = None
    """The record the hand in progress was dealt from (with its server seed: never shown before the reveal)."""
    committed: int | None = None
    """The next hand, once this process has shown its commitment (stored first, on the board) and armed its
    deal after the table's pause (`Dealer.announce_next`, or the settlement of the last hand): the
    only hand a deal may deal at once; any other has its commitment shown and waits the pause first."""
    commitment: str = ""
    """The commitment of hand :attr:`committed` (the board shows it until that hand is dealt)."""
    reveal: str | None = None
    """The table's reveal mode ('hand' or 'stop') once read: only its own 'config reveal=', run where the
    table is held, changes it (another process holding the table later restores it anew)."""
    closed: bool = False
    rebuys: dict[str, int] | None = None
    """Rebuys waiting for the hand in progress to end, user -> chips (bot/table/rebuys.py; None: not read yet)."""
    approve: bool | None = None
    """Whether joins and rebuys need the host's approval ('config approve=on'; None: not read yet)."""
    moved: bool = False
    """Cluster mode: another process took the table (it was dropped from this one)."""
    clocks: TableClocks = field(default_factory=lambda: TableClocks(timebank=DEFAULT_TIMEBANK))
    """The time bank and the pause (bot/table/timebank.py): read from the database when the table is restored."""
    _players_of: _Cast | None = field(default=None, init=False, repr=False,
                                                                        compare=False)
    """(the players list they were made from, names, user -> engine seat): asked for several times an action;
    made again whenever the hand's setup (and so its players list) is another one."""

    @cached_property
    def address(self) -> TableAddress:
        """Where the table is (a table never moves: made once, asked for several times an action)."""
        t = self.table
        return TableAddress(platform=t.platform, community=t.community, channel=t.channel)

    @property
    def tr(self) -> Translator:
        """The table's language: its board and public lines."""
        return translator(self.table.lang)

    @property
    def names(self) -> list[str]:
        """The hand's players' names in seat order (the same list until the next hand's setup: do not change it)."""
        return self._players().names if self.setup else []

    def engine_seat(self, user: str) -> int | None:
        if self.setup is None:
            return None
        return self._players().seats.get(user)

    def _players(self) -> _Cast:
        assert self.setup is not None
        players = self.setup.players
        known = self._players_of
        if known is None or known.players is not players:
            seats: dict[str, int] = {}
            for i, p in enumerate(players):
                seats.setdefault(p.user, i)  # the first seat of a user, as a search in seat order finds it
            known = self._players_of = _Cast(players, [p.name for p in players], seats)
        return known

    def seat_no(self, engine_seat: int) -> int:
        assert self.setup is not None
        return self.setup.players[engine_seat].seat_no

    def seat_in_hand(self, engine_seat: int) -> Seat | None:
        """The table seat of a player dealt into the hand, if they still hold it: a seat number
        alone is not enough, since someone else may have sat down there since the deal."""
        assert self.setup is not None
        dealt = self.setup.players[engine_seat]
        seat = self.table.seats.get(dealt.seat_no)
        return seat if seat is not None and seat.user == dealt.user else None

    def check_open(self) -> None:
        """Under the table's lock, before a command acts on it: still held here (cluster mode may have
        dropped it meanwhile: :class:`TableMoved`) and not closed."""
        if self.moved:
            raise TableMoved()
        if self.closed:
            raise Refusal("refuse.closed")

    @property
    def playing(self) -> bool:
        """A hand is in progress (dealt and not over)."""
        return self.hand is not None and not self.hand.is_over

    @property
    def key(self) -> str:
        """The key of the table among those held here: "platform:channel"."""
        return self.address.key

    @property
    def turn(self) -> str | None:
        if not self.playing:
            return None
        assert self.hand is not None
        return f"{self.table.hand_no}.{len(self.hand.actions)}"


def community_of(msg: Inbound) -> str:
    """The community (wallets, stats) a message comes from: ids are only unique within a platform."""
    return f"{msg.platform}:{msg.community}"


def table_language(community_locale: str | None) -> str | None:
    """A new table's language from its server's: Discord gives every server 'en-US' unless a
    community server chose another, so 'en-US' says nothing and the opener's language decides.

    >>> table_language("ru"), table_language("pl"), table_language("en-GB"), table_language("en-US")
    ('ru', 'pl', 'en', None)
    """
    if community_locale is None or community_locale == "en-US":
        return None
    return language_of(community_locale)


class TableHooks(Protocol):
    """What a feature adds to the life of a hand (sit-and-go tournaments: bot/tourney; the stats rows:
    bot/stats/rows.py). Hooks run in the order registered; a subclass keeps the defaults it does not need."""

    def adopted(self, table: Table) -> None:
        """A table is held here from now on (opened before, restored or taken over): mark what is the feature's."""
        return None

    async def before_deal(self, rt: Runtime) -> None:
        """Before a hand is dealt (its stakes may change)."""
        return None

    async def settled(self, rt: Runtime, tx: Tx, *, setup: HandSetup, stacks: Sequence[int],
                      now: float) -> Callable[[], Awaitable[None]] | None:
        """Inside the settlement's transaction; what to announce once it is committed."""
        return None

    def lobby(self, rt: Runtime) -> BoardView | None:
        """The board to show instead of the table's, if any."""
        return None

    async def closing(self, rt: Runtime, tx: Tx, *, now: float) -> Callable[[], Awaitable[None]] | None:
        """Inside the transaction that closes the table (every seat cashed out); what to say once it is
        committed and the table said it closed (a cash table's settle-up: bot/table/settling.py)."""
        return None


class TableGuard(Protocol):
    """What the cluster (bot/cluster/cluster.py) does for the tables of this process: the lease a table's
    writes are made under, the lease of a new table, and where a command runs. :class:`NoGuard` for one process."""

    def fenced(self, rt: Runtime) -> AbstractContextManager[None]:
        """Writes for ``rt`` in the block commit only while this process holds its lease."""

    def lost(self, rt: Runtime) -> None:
        """A write for ``rt`` found its lease gone: drop the table from memory."""

    async def created(self, tx: Tx, table_id: int) -> None:
        """In the transaction that creates a table: what the cluster keeps of it (its lease, to this process)."""

    async def start(self) -> None:
        """Take the tables this process is to hold, restored (:meth:`LocalBot.adopt`)."""

    async def route(self, msg: Inbound) -> Reply:
        """Answer one command here (:meth:`LocalBot.handle_local`), or where the channel's table is held."""

    def raises(self, exc: Exception) -> bool:
        """Whether the funnel lets ``exc`` through (the cluster answers it) rather than apologising for a bug."""

    async def reachable(self, *, platform: str, user: str) -> None:
        """The user can get private messages now: the other processes hear it too."""

    def stop_taking(self) -> None:
        """A stop begins: take no more tables or forwarded commands."""

    async def close(self) -> None:
        """After the bot stopped: leave every table to the other processes."""


class LocalBot(Protocol):
    """What the cluster may call on the application of this process (bot/app.py's StudBot)."""

    @property
    def stopping(self) -> bool: ...

    @property
    def work(self) -> Work: ...

    @property
    def tables(self) -> Tables: ...

    async def handle_local(self, msg: Inbound) -> Reply:
        """Answer one command in this process (the table, if any, is held here)."""

    async def adopt(self, table: Table) -> None:
        """Hold an open table here: restore it, its hand in progress and its timers."""

    async def reload(self, table_id: int) -> None:
        """Read anew what the features keep of a table about to be taken over."""

    def dropped(self, table_id: int) -> None:
        """A table is no longer held here: the features forget it."""

    async def mark_reachable_local(self, *, platform: str, user: str) -> int:
        """The user can get private messages now: their seats at the tables held here (see Seating)."""

    def needs_table(self, name: str) -> bool:
        """Whether the command ``name`` runs where the channel's table is held (else anywhere)."""

    def translator(self, msg: Inbound) -> Translator:
        """The sender's translator."""

    def learn_language(self, *, platform: str, user: str, lang: str, chosen: bool) -> None:
        """A user's language, chosen or seen at another process."""


class NoGuard:
    """One process holds every table: no lease, every command answered here (a :class:`TableGuard`)."""

    def __init__(self, *, store: Store) -> None:
        self.store = store
        self.bot: LocalBot | None = None

    def bind(self, bot: LocalBot) -> None:
        self.bot = bot

    def _bot(self) -> LocalBot:
        assert self.bot is not None, "NoGuard.bind first"
        return self.bot

    def fenced(self, rt: Runtime) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    def lost(self, rt: Runtime) -> None:
        """Never: nothing fences a write."""

    async def created(self, tx: Tx, table_id: int) -> None:
        """Nothing to keep."""

    async def start(self) -> None:
        for table in await self.store.open_tables():
            await self._bot().adopt(table)

    async def route(self, msg: Inbound) -> Reply:
        return await self._bot().handle_local(msg)

    def raises(self, exc: Exception) -> bool:
        return False

    async def reachable(self, *, platform: str, user: str) -> None:
        """Every table is here: nobody else to tell."""

    def stop_taking(self) -> None:
        """Nothing is taken."""

    async def close(self) -> None:
        """Nothing to leave."""


class Tables(Mapping[str, Runtime]):
    """The tables held by this process, by "platform:channel", and the one way to open a table there."""

    def __init__(self, *, store: Store, clock: Clock, settings: Settings, guard: TableGuard) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.guard = guard
        self._held: dict[str, Runtime] = {}
        self._opening = asyncio.Lock()  # two 'new' in one channel at once: one table

    def __getitem__(self, key: str) -> Runtime:
        return self._held[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def of(self, msg: Inbound) -> Runtime | None:
        """The table of the message's channel, if held here."""
        return self._held.get(channel_key(platform=msg.platform, channel=msg.channel))

    def hold(self, table: Table) -> Runtime:
        """Hold an open table read from the database (a start, a takeover)."""
        rt = Runtime(table=table, clocks=TableClocks(timebank=self.settings.time_bank))
        self._held[rt.key] = rt
        return rt

    def drop(self, rt: Runtime) -> None:
        """The table is closed, or held by another process now."""
        self._held.pop(rt.key, None)

    async def open(self, msg: Inbound, *, stakes: Stakes, lang: Callable[[], str], taken: str,
                   within: Callable[[Tx, int], Awaitable[int | None]] | None = None) -> Runtime:
        """Open a table in the message's channel (``taken``: the refusal if one is open there): created in
        one transaction with what ``within`` adds to it (a tournament: its id), and held here."""
        key = channel_key(platform=msg.platform, channel=msg.channel)
        community = community_of(msg)
        async with self._opening:
            if key in self._held:
                raise Refusal(taken)
            language = lang()
            tournament = None
            async with self.store.atomic() as tx:
                table_id = await tx.create_table(
                    platform=msg.platform, community=community, channel=msg.channel, creator=msg.user,
                    stakes=stakes, timer=self.settings.turn_timer, now=self.clock.now(), lang=language)
                if within is not None:
                    tournament = await within(tx, table_id)
                await self.guard.created(tx, table_id)
            table = Table(id=table_id, platform=msg.platform, community=community, channel=msg.channel,
                          creator=msg.user, stakes=stakes, timer=self.settings.turn_timer, lang=language,
                          tournament=tournament)
            return self.hold(table)


def require_owner(rt: Runtime, msg: Inbound) -> None:
    """The sender owns the table (opened it) or is an admin of the chat; else a refusal."""
    if not (msg.admin or msg.user == rt.table.creator):
        raise Refusal("refuse.owner")


def seated(rt: Runtime, msg: Inbound) -> Seat:
    """The sender's seat at the table; a refusal if they have none."""
    seat = rt.table.seat_of(msg.user)
    if seat is None:
        raise Refusal("refuse.not_seated")
    return seat
