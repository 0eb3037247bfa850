"""Sit-and-go tournaments at work: the commands, and the hooks into the life of a hand.

A tournament is played at a table of its own in a channel (``tables``), with a row in
``tournaments`` and one per player in ``tourney_players``. Registering moves the buy-in from
the wallet to the prize pool; the start issues every player the same stack of tournament
chips; each hand is dealt at the level the schedule gives (by hands dealt, or minutes since
the start); a settled hand that leaves players without chips places them in the same
transaction; the last one's settlement pays every prize and closes the table. Every step
is one transaction, so a restart at any moment resumes it (bot/table/dealer.py restores the hand).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Final

from bot.chips import wallets
from bot.chips.ledger import Transfer, seat_account
from bot.core.config import Settings
from bot.core.errors import Refusal
from bot.core.i18n import Translator
from bot.core.limits import PACES
from bot.core.model import MIX, HandSetup, Seat, Table
from bot.core.names import display_name, unique_name
from bot.core.ports import BoardView, Button, Clock, Inbound, Reply
from bot.platform import updates
from bot.store import Store, Tx
from bot.store.fence import TableMoved, is_fenced
from bot.table.commands import TableCommands
from bot.table.dealer import Dealer
from bot.table.fairness import Fairness, Revealed, revealed_seeds
from bot.table.output import TableOutput
from bot.table.routes import Route
from bot.table.runtime import Runtime, TableHooks, Tables, community_of, require_owner
from bot.table.seating import refilled
from bot.table.timers import cancel_timers
from bot.text.grammar import Command
from bot.text.render import chips, chips_field, seconds_text
from bot.text.results import game_name
from bot.tourney.schedule import (
    DEFAULT_STACK,
    LEVELS,
    Clocking,
    level_game,
    level_of,
    level_stakes,
    place_out,
    places_paid,
    prizes,
)
from bot.tourney.store import Entrant, Tournament, TourneyRepo, chips_account
from engine import Stakes
from engine.games import MIX_ORDER

log = logging.getLogger(__name__)

DEFAULTS: Final[dict[str, int | str]] = {"seats": 6, "stack": DEFAULT_STACK, "buyin": 100, "pace": "normal",
                                        "payout": "65/35", "game": "stud8"}
TABLE_KEYS: Final = frozenset({"game", "mix_hands"})
"""What ``config`` may not change at a sit-and-go's table: its game is the tournament's (``tourney new game=``)."""


class Tourneys(TableHooks):
    """The sit-and-go tournaments of the tables held here: the 'tourney' commands, the cash-table commands
    at a tournament's table, and the hooks into the life of its hands."""

    def __init__(self, *, dealer: Dealer, output: TableOutput, tables: Tables, commands: TableCommands,
                 store: Store, clock: Clock, settings: Settings, fair: Fairness, rng: random.Random) -> None:
        self.dealer = dealer
        self.output = output
        self.tables = tables
        self.commands = commands
        self.store = store
        self.clock = clock
        self.settings = settings
        self.fair = fair
        self.rng = rng
        """The draw of the seats."""
        self.repo = TourneyRepo(store)
        self.by_table: dict[int, Tournament] = {}

    async def played_at(self, table_id: int) -> tuple[int, int] | None:
        """(number, buy-in) of the sit-and-go played at the table, None at a cash table: what a hand
        history of the table's hands names (bot.history's ``TournamentBook``)."""
        rows = await self.store.fetch("SELECT id, buyin FROM tournaments WHERE table_id = ? ORDER BY id LIMIT 1",
                                      (table_id,))
        return (int(rows[0]["id"]), int(rows[0]["buyin"])) if rows else None

    @staticmethod
    def level_of(stakes: Stakes) -> int | None:
        """The level a hand at these stakes was dealt at (None: no level has them)."""
        return level_of(stakes)

    def routes(self) -> Mapping[str, Route]:
        """'tourney' (at the channel's table's process), and the cash-table commands that mean something
        else, or nothing, at a tournament's table."""
        at_table = ("join", "addbot", "start", "leave", "kick", "stop", "config")
        return {"tourney": Route(free=self.command, at_channel=True)} | {
            name: Route(at_tournament=self.at_table) for name in at_table}

    async def load(self) -> None:
        """The tournaments registering or running (before their tables are restored)."""
        self.by_table = {t.table_id: t for t in await self.repo.active()}

    def forget(self, table_id: int) -> None:
        """The table is held by another process now: its tournament is that process's."""
        self.by_table.pop(table_id, None)

    async def load_table(self, table_id: int) -> None:
        """The tournament of one table (cluster mode: a table taken from another process)."""
        self.by_table.pop(table_id, None)
        for t in await self.repo.load("table_id = ? AND status IN ('registering', 'running')", (table_id,)):
            self.by_table[t.table_id] = t

    def adopted(self, table: Table) -> None:
        """A table held here from now on: a tournament's table knows its tournament."""
        if table.id in self.by_table:
            table.tournament = self.by_table[table.id].id

    def of(self, rt: Runtime) -> Tournament:
        t = self.by_table.get(rt.table.id)
        if t is None:
            raise Refusal("tourney.refuse_none")
        return t

    # ------------------------------------------------------------------ commands

    async def command(self, msg: Inbound, command: Command) -> Reply:
        """'tourney ...' (and 'register', 'unregister', short for 'tourney register' ...)."""
        sub = str(command.args[0])
        if sub == "new":
            return await self._new(msg, command)
        rt = self.tables.of(msg)
        if sub == "levels":  # the schedule, the level being played marked
            here = self.by_table.get(rt.table.id) if rt is not None else None
            current = here.level if here is not None and here.status == "running" else None
            return Reply(self._levels(self._tr(msg), current, game=here.game if here is not None else None),
                         private=True)
        if rt is None and is_fenced():  # cluster mode: it was held here a moment ago
            raise TableMoved()
        if rt is None or rt.table.tournament is None:
            if sub in ("status", "results"):
                return await self._past(msg)
            raise Refusal("tourney.refuse_none")
        async with rt.lock:
            rt.check_open()
            t = self.of(rt)
            tr = self._tr(msg)
            if sub == "status":
                return Reply(self.status_text(rt, t, tr), private=True)
            if sub == "results":
                return Reply(self._results_text(t, tr), private=True)
            if sub == "register":
                return await self._register(rt, t, user=msg.user, name=msg.name, is_bot=False, msg=msg)
            if sub == "unregister":
                return await self._unregister(rt, t, msg)
            if sub == "start":
                return await self._start_cmd(rt, t, msg)
            assert sub == "cancel"
            return await self._cancel(rt, t, msg)

    async def at_table(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """A cash-table command at a tournament's table (the table's lock is held)."""
        t = self.of(rt)
        name = command.name
        if name == "addbot":  # named as a cash table names its bots: shown cleaned, unlike any entrant
            require_owner(rt, msg)  # a bot entrant fills seats: it may start the sit-and-go
            base = str(command.args[0]) if command.args else f"Bot{len(t.entrants) + 1}"
            wanted = display_name(base) or "player"
            bot_name = unique_name(base, taken=[e.name for e in t.entrants.values()])
            if command.args and bot_name != wanted:
                raise Refusal("refuse.name_taken", name=wanted)
            return await self._register(rt, t, user=f"bot:{bot_name.lower()}", name=bot_name, is_bot=True, msg=msg)
        if name == "start":
            return await self._start_cmd(rt, t, msg)
        if name == "leave" and t.status == "registering":
            return await self._unregister(rt, t, msg)
        if name == "stop":  # registering or running: cancelled, every buy-in back
            return await self._cancel(rt, t, msg)
        if name == "config" and not any(isinstance(v, int) for v in command.options.values()) \
                and not TABLE_KEYS & command.options.keys():
            return await self.commands.config(rt, msg, command)  # its view and language may change
        if name == "join":
            raise Refusal("tourney.refuse_join")
        raise Refusal("tourney.refuse_running")

    async def _new(self, msg: Inbound, command: Command) -> Reply:
        o = {**DEFAULTS, **command.options}
        unit, _, length = str(o.get("levels", "")).partition(":")
        pace = str(o["pace"])
        if not length:
            unit, length = "hands", str(PACES[pace]["hands"])
        tr = self._tr(msg)
        now = self.clock.now()
        community = community_of(msg)
        made: list[Tournament] = []

        async def create(tx: Tx, table_id: int) -> int:
            t = Tournament(id=0, table_id=table_id, platform=msg.platform, community=community,
                           channel=msg.channel, creator=msg.user, status="registering", seats=int(o["seats"]),
                           stack=int(o["stack"]), buyin=int(o["buyin"]), unit=unit, length=int(length),
                           pace=pace, payout=str(o["payout"]), game=str(o["game"]))
            t.id = await self.repo.create(tx, t, now=now)
            await tx.execute("UPDATE tables SET game = ? WHERE id = ?", (level_game(t.game, 1).value, table_id))
            made.append(t)
            return t.id

        rt = await self.tables.open(msg, stakes=level_stakes(1), lang=lambda: tr.lang, taken="tourney.refuse_table",
                                    within=create)
        t = made[-1]
        self.by_table[rt.table.id] = t
        rt.table.game = level_game(t.game, 1).value
        async with rt.lock:
            await self.output.say(rt, "tourney.opens", name=display_name(msg.name) or "player", id=t.id,
                                  game=lambda tr: self._game(t, tr), seats=t.seats, buyin=chips_field(t.buyin),
                                  stack=t.stack,
                                  every=lambda tr: self._every(t, tr), paid=lambda tr: self._paid(t))
            await self.output.publish(rt, new=True)
        return Reply(self._tr(msg)("tourney.reply_opened", id=t.id))

    async def _register(self, rt: Runtime, t: Tournament, *, user: str, name: str, is_bot: bool,
                        msg: Inbound) -> Reply:
        """``name``: a player's as their platform gives it (shown as a cash seat shows it, unlike any
        other entrant's: the deal and its fair record tell players by name), a bot's as it is to be shown."""
        if t.status != "registering":
            raise Refusal("tourney.refuse_started")
        if user in t.entrants:
            raise Refusal("tourney.refuse_registered", code="already_registered")
        if len(t.entrants) >= t.seats:
            raise Refusal("refuse.full")
        if not is_bot:
            name = unique_name(name, taken=[e.name for e in t.entrants.values()])
        now = self.clock.now()
        entrant = Entrant(user=user, name=name, is_bot=is_bot, seq=max((e.seq for e in t.entrants.values()),
                                                                         default=0) + 1)
        key = updates.pending() if is_bot else None  # a retried 'addbot' registers no second bot (see seating)
        async with self.store.atomic() as tx:
            if key is not None and not await updates.mark_applied(tx, key):
                raise Refusal("refuse.applied_already", code="applied_already")
            balance = t.buyin if is_bot else await wallets.ensure_wallet(  # a house bot: from the house's bankroll
                tx, community=t.community, user=user, name=name, balance=self.settings.starting_balance, now=now)
            if not is_bot:  # broke: refilled once a day, as for 'join'
                balance = await refilled(tx, community=t.community, user=user, balance=balance, needed=t.buyin,
                                         starting=self.settings.starting_balance, now=now)
            if balance < t.buyin:
                raise Refusal("tourney.refuse_wallet", buyin=chips_field(t.buyin), chips=chips_field(balance))
            await self.repo.move_wallet(tx, t=t, user=user, amount=t.buyin, kind="tourney-buy-in", now=now,
                                        house=is_bot)
            await self.repo.save_entrant(tx, t.id, entrant)
        if key is not None:
            key.marked = True
        t.entrants[user] = entrant
        await self.output.say(rt, "tourney.registers", name=name, id=t.id, count=len(t.entrants), seats=t.seats,
                              pool=chips_field(t.pool))
        await self.output.publish(rt)
        if len(t.entrants) == t.seats:
            await self._start(rt, t)
        tr = self._tr(msg)
        return Reply(tr("tourney.reply_bot", name=name) if is_bot else tr("tourney.reply_registered", id=t.id),
                     code="registered")

    async def _unregister(self, rt: Runtime, t: Tournament, msg: Inbound) -> Reply:
        if t.status != "registering":
            raise Refusal("tourney.refuse_started")
        entrant = t.entrants.get(msg.user)
        if entrant is None:
            raise Refusal("tourney.refuse_not_registered")
        now = self.clock.now()
        async with self.store.atomic() as tx:
            await self.repo.move_wallet(tx, t=t, user=msg.user, amount=-t.buyin, kind="tourney-refund", now=now)
            await self.repo.remove_entrant(tx, t.id, msg.user)
        del t.entrants[msg.user]
        await self.output.say(rt, "tourney.unregisters", name=entrant.name, count=len(t.entrants), seats=t.seats,
                              pool=chips_field(t.pool))
        await self.output.publish(rt)
        return Reply(self._tr(msg)("tourney.reply_unregistered", buyin=chips_field(t.buyin)), private=True)

    async def _cancel(self, rt: Runtime, t: Tournament, msg: Inbound) -> Reply:
        """Registering or running (even stuck after a failed deal), by its creator or an admin:
        a hand in progress is called off, the tournament chips at the table go back to where
        they were issued from, every buy-in back to its wallet, the table closed. One transaction."""
        table = rt.table
        require_owner(rt, msg)
        now = self.clock.now()
        playing = rt.hand_id if rt.playing else None
        async with self.store.atomic() as tx:
            if playing is not None:
                await tx.void_hand(hand_id=playing, now=now)
            back = [Transfer("tourney-cancel", seat_account(table.id, seat.user), chips_account(t.id), seat.stack,
                             memo=f"tournament {t.id}") for seat in table.seats.values() if seat.stack]
            await wallets.post(tx, back, now=now)
            for seat in table.seats.values():
                await tx.remove_seat(table.id, seat.seat_no)
            for e in t.entrants.values():
                await self.repo.move_wallet(tx, t=t, user=e.user, amount=-t.buyin, kind="tourney-refund", now=now,
                                            house=e.is_bot)
            await self.repo.save(tx, replace(t, status="cancelled"), now=now)
            await tx.close_table(table.id)
            revealed = await self.fair.reveal_all(tx, table_id=table.id)  # finished hands only
        t.status = "cancelled"
        table.seats.clear()
        table.running, table.next_hand_at = False, None
        self._close(rt)
        await self.output.say(rt, "tourney.cancelled_voided" if playing is not None else "tourney.cancelled", id=t.id)
        if revealed:
            await self.output.say(rt, "fair.revealed_all", seeds=revealed_seeds(revealed))
        return Reply(self._tr(msg)("reply.closed"))

    async def _start_cmd(self, rt: Runtime, t: Tournament, msg: Inbound) -> Reply:
        require_owner(rt, msg)
        if t.status == "running" and not rt.table.running:  # its last deal failed: deal again
            rt.table.running = True
            await self.dealer.start_hand(rt)
            return Reply(self._tr(msg)("reply.dealing", seconds=seconds_text(self.settings.next_hand_delay)))
        if t.status != "registering":
            raise Refusal("tourney.refuse_started")
        if len(t.entrants) < 2:
            raise Refusal("refuse.two_needed")
        await self._start(rt, t)
        return Reply(self._tr(msg)("reply.dealing", seconds=seconds_text(self.settings.next_hand_delay)))

    async def _start(self, rt: Runtime, t: Tournament) -> None:
        """Seats drawn, the same stack of tournament chips to each, level 1, the first hand."""
        table = rt.table
        users = list(t.entrants)
        self.rng.shuffle(users)
        now = self.clock.now()
        t.status, t.level, t.started_at, t.started_hand = "running", 1, now, table.hand_no
        table.stakes, table.running, table.game = level_stakes(1), True, level_game(t.game, 1).value
        async with self.store.atomic() as tx:
            for seat_no, user in enumerate(users):
                e = t.entrants[user]
                seat = Seat(seat_no=seat_no, user=user, name=e.name, stack=t.stack, is_bot=e.is_bot)
                await tx.save_seat(table.id, seat)
                table.seats[seat_no] = seat
            await wallets.post(tx, [Transfer("tourney-chips", chips_account(t.id), seat_account(table.id, u), t.stack,
                                             memo=f"tournament {t.id}") for u in users], now=now)
            await self.repo.save(tx, t, now=now)
            await tx.save_table(table)
        await self.output.say(rt, "tourney.starts", id=t.id, count=len(users), stack=t.stack, pool=chips_field(t.pool),
                              names=", ".join(t.entrants[u].name for u in users))
        await self._say_level(rt, t)
        await self.dealer.start_hand(rt)  # the first hand's commitment on the board, its deal after the pause

    # ------------------------------------------------------------------ hooks (bot/table/dealer.py)

    async def before_deal(self, rt: Runtime) -> None:
        """The level of the hand about to be dealt; a new one is saved and announced first."""
        t = self.by_table.get(rt.table.id)
        if t is None or t.status != "running":
            return
        level = self.level_now(rt, t)
        if level <= t.level:
            return
        t.level = level
        rt.table.stakes = level_stakes(level)
        rt.table.game = level_game(t.game, level).value  # the dealer deals the table's game (G8: each level's)
        async with self.store.atomic() as tx:
            await self.repo.save(tx, t, now=self.clock.now())
            await tx.save_table(rt.table)
        await self._say_level(rt, t)

    def level_now(self, rt: Runtime, t: Tournament) -> int:
        """The level of the next hand (never below the one played: levels only go up)."""
        played = rt.table.hand_no - (t.started_hand or 0)
        seconds = self.clock.now() - (t.started_at or self.clock.now())
        return max(t.level, Clocking(t.unit, t.length).level_at(hands_played=played, seconds=seconds))

    async def settled(self, rt: Runtime, tx: Tx, *, setup: HandSetup, stacks: Sequence[int],
                      now: float) -> Callable[[], Awaitable[None]] | None:
        """Inside the settlement: place the players the hand left without chips; if one is left,
        pay every prize, take the chips back and close the table."""
        t = self.by_table.get(rt.table.id)
        if t is None or t.status != "running":
            return None
        out = [(p.user, p.stack) for player, p in enumerate(setup.players)
               if stacks[player] == 0 and p.user in t.entrants and t.entrants[p.user].place is None]
        if not out:
            return None
        alive = len(t.alive())
        table_prizes = self.prize_table(t)
        placings = place_out(out=out, left=alive - len(out), table=table_prizes)
        for p in placings:
            e = t.entrants[p.user]
            e.place, e.shared, e.prize, e.out_hand, e.start_chips = p.place, p.shared, p.prize, setup.hand_no, \
                dict(out)[p.user]
            await self.repo.save_entrant(tx, t.id, e)
        winner: Entrant | None = None
        revealed: list[Revealed] = []
        if alive - len(out) == 1:
            winner = t.alive()[0]
            winner.place, winner.shared, winner.prize = 1, 1, table_prizes[0]
            await self.repo.save_entrant(tx, t.id, winner)
            await self._finish(rt, t, tx, winner=winner, now=now)
            # Its end is the table's stop: a 'config reveal=stop' table reveals every seed now (FAIRNESS.md).
            revealed = await self.fair.reveal_all(tx, table_id=rt.table.id)
        total = len(t.entrants)

        async def announce() -> None:
            for p in placings:
                name = t.entrants[p.user].name
                place = f"{p.place}–{p.place + p.shared - 1}" if p.shared > 1 else str(p.place)
                if p.prize:
                    await self.output.say(rt, "tourney.out_prize", name=name, place=place, total=total,
                                          prize=chips_field(p.prize))
                else:
                    await self.output.say(rt, "tourney.out", name=name, place=place, total=total)
            if winner is not None:
                await self.output.say(rt, "tourney.winner", name=winner.name, prize=chips_field(winner.prize or 0))
                await self.output.say_text(rt, self._results_text(t, rt.tr))
            if revealed:
                await self.output.say(rt, "fair.revealed_all", seeds=revealed_seeds(revealed))

        return announce

    async def _finish(self, rt: Runtime, t: Tournament, tx: Tx, *, winner: Entrant, now: float) -> None:
        """The last hand's settlement: the winner's chips back to where they were issued from,
        every prize from the pool to its wallet (once: the tournament is then 'finished')."""
        table = rt.table
        seat = table.seat_of(winner.user)
        if seat is not None:
            if seat.stack:
                await wallets.post(tx, [Transfer("tourney-end", seat_account(table.id, winner.user),
                                                 chips_account(t.id), seat.stack, memo=f"tournament {t.id}")], now=now)
            await tx.remove_seat(table.id, seat.seat_no)
            del table.seats[seat.seat_no]
        for e in sorted(t.entrants.values(), key=lambda e: (e.place or 0, e.seq)):
            await self.repo.move_wallet(tx, t=t, user=e.user, amount=-(e.prize or 0), kind="prize", now=now,
                                        memo=f"tournament {t.id} place {e.place}", house=e.is_bot)
        t.status = "finished"
        await self.repo.save(tx, t, now=now)
        table.running, table.next_hand_at = False, None
        await tx.close_table(table.id)
        self._close(rt)

    def _close(self, rt: Runtime) -> None:
        cancel_timers(rt)
        rt.closed = True
        self.by_table.pop(rt.table.id, None)
        self.tables.drop(rt)

    def lobby(self, rt: Runtime) -> BoardView | None:
        """While registering: the tournament's state and a Register button instead of the table."""
        t = self.by_table.get(rt.table.id)
        if t is None or t.status != "registering":
            return None
        tr = rt.tr
        return BoardView(text=self.status_text(rt, t, tr), hand_no=0,
                         buttons=(Button(label=tr("tourney.button_register"), command="register"),))

    # ------------------------------------------------------------------ texts

    @staticmethod
    def prize_table(t: Tournament) -> list[int]:
        return prizes(t.pool, places_paid(t.payout, len(t.entrants)))

    def _paid(self, t: Tournament) -> str:
        if t.status == "registering":
            return t.payout
        return " / ".join(str(p) for p in self.prize_table(t))

    @staticmethod
    def _every(t: Tournament, tr: Translator) -> str:
        return tr.n("tourney.n_hands" if t.unit == "hands" else "tourney.n_minutes", t.length)

    def status_text(self, rt: Runtime, t: Tournament, tr: Translator) -> str:
        if t.status == "registering":
            names = ", ".join(e.name for e in t.entrants.values()) or "—"
            return tr("tourney.status_registering", id=t.id, game=self._game(t, tr), count=len(t.entrants),
                      seats=t.seats, names=names, buyin=chips(t.buyin, tr), stack=t.stack, every=self._every(t, tr),
                      pool=chips(t.pool, tr), paid=self._paid(t))
        level = self.level_now(rt, t)
        s = level_stakes(t.level)
        if t.unit == "hands":
            played = rt.table.hand_no - (t.started_hand or 0)
            left = t.length - played % t.length if level == t.level else 0
            upcoming = tr.n("tourney.n_hands", left)
        else:
            seconds = self.clock.now() - (t.started_at or 0.0)
            left = max(0, int(-(-(t.length * 60 * t.level - seconds) // 60)))
            upcoming = tr.n("tourney.n_minutes", left)
        players = ", ".join(f"{seat.name} {seat.stack}" for _, seat in sorted(rt.table.seats.items()))
        return tr("tourney.status_running", id=t.id, game=self._game(t, tr, level=t.level), level=t.level,
                  ante=s.ante, bring_in=s.bring_in, small=s.small_bet, big=s.big_bet, next=upcoming, players=players,
                  pool=chips(t.pool, tr), paid=self._paid(t))

    def _results_text(self, t: Tournament, tr: Translator) -> str:
        if t.status == "cancelled":
            return tr("tourney.results_cancelled", id=t.id)
        placed = sorted((e for e in t.entrants.values() if e.place is not None), key=lambda e: (e.place, e.seq))
        if not placed:
            return tr("tourney.no_results", id=t.id)
        rows = [f"{e.place}{'=' if (e.shared or 1) > 1 else '.'} {e.name} — {chips(e.prize or 0, tr)}"
                for e in placed]
        head = tr("tourney.results_final" if t.status == "finished" else "tourney.results_so_far", id=t.id,
                  game=self._game(t, tr), pool=chips(t.pool, tr))
        return "\n".join([head, *rows])

    @staticmethod
    def _game(t: Tournament, tr: Translator, *, level: int | None = None) -> str:
        """The sit-and-go's game in ``tr``'s words; a mix's with the game of ``level`` ('Stud mix · Razz')."""
        if t.game != MIX or level is None:
            return game_name(tr, t.game)
        return tr("tourney.mix_now", mix=game_name(tr, MIX), game=game_name(tr, level_game(MIX, level).value))

    def _levels(self, tr: Translator, current: int | None, *, game: str | None = None) -> str:
        """The schedule; with ``game`` (the channel's sit-and-go's) ``mix``, each level's game beside it (G8)."""
        mix = game == MIX
        rows = [tr("tourney.levels_head_mix" if mix else "tourney.levels_head")]
        for n in range(1, len(LEVELS) + 1):
            s = level_stakes(n)
            mark = " ◀" if n == current else ""
            dealt = f"  {game_name(tr, level_game(MIX, n).value)}" if mix else ""
            rows.append(f"{n:>2}  {s.ante:>4}  {s.bring_in:>4}  {s.small_bet:>5}/{s.big_bet}{dealt}{mark}")
        rows.append(tr("tourney.levels_after"))
        rows.append(tr("tourney.levels_mix_after" if mix else "tourney.levels_mix",
                       games=", ".join(game_name(tr, g.value) for g in MIX_ORDER)))
        rows.append(tr("tourney.levels_pace", normal_hands=PACES["normal"]["hands"],
                       normal_minutes=PACES["normal"]["minutes"], turbo_hands=PACES["turbo"]["hands"],
                       turbo_minutes=PACES["turbo"]["minutes"], stack=DEFAULT_STACK))
        return "\n".join(rows)

    async def _past(self, msg: Inbound) -> Reply:
        t = await self.repo.last_in(msg.platform, msg.channel)
        if t is None:
            raise Refusal("tourney.refuse_none")
        return Reply(self._results_text(t, self._tr(msg)), private=True)

    async def _say_level(self, rt: Runtime, t: Tournament) -> None:
        """The level's stakes, on the board before its first hand; in a mix, its game too (G8)."""
        s = level_stakes(t.level)
        if t.game == MIX:
            game = level_game(MIX, t.level).value
            await self.output.say(rt, "tourney.level_game", level=t.level, game=lambda tr: game_name(tr, game),
                                  ante=s.ante, bring_in=s.bring_in, small=s.small_bet, big=s.big_bet)
            return
        await self.output.say(rt, "tourney.level", level=t.level, ante=s.ante, bring_in=s.bring_in, small=s.small_bet,
                              big=s.big_bet)

    def _tr(self, msg: Inbound) -> Translator:
        return self.output.tr(msg)
