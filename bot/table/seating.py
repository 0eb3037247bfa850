"""Seats: sitting down (``join``, ``addbot``: the owner's) with the buy-in and the daily refill,
getting up (``leave``, ``kick``; mid-hand the seat is cashed out when the hand settles, and a
player kicked mid-hand plays it out first), and sitting out and coming back (``sitout``, ``back``;
``sitout NAME``: the host puts a player out). Under ``config approve=on`` a ``join`` is a request
the host answers (:mod:`bot.table.hosting`).

The application (bot/app.py) holds a :class:`Seating` and routes these commands here (its
:meth:`Seating.routes`), the table's lock held; every change is committed before it is announced.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime

from bot.chips import wallets
from bot.core.config import Settings
from bot.core.errors import Refusal
from bot.core.i18n import Translator
from bot.core.limits import BUY_IN_BIG_BETS
from bot.core.model import Seat, Table
from bot.core.names import unique_name
from bot.core.ports import Clock, Inbound, Reply
from bot.platform import updates
from bot.store import Store, Tx
from bot.store.fence import LeaseLost
from bot.table import rebuys
from bot.table.dealer import Dealer
from bot.table.output import TableOutput
from bot.table.routes import Route
from bot.table.runtime import Runtime, Tables, require_owner, seated
from bot.text import render
from bot.text.grammar import Command
from bot.text.render import chips_field

log = logging.getLogger(__name__)


class Seating:
    """Who sits at a table: the seating commands (the table's lock held), and private messages
    reachable again."""

    def __init__(self, *, dealer: Dealer, output: TableOutput, tables: Tables, store: Store, settings: Settings,
                 clock: Clock) -> None:
        self.dealer = dealer
        self.output = output
        self.tables = tables
        self.store = store
        self.settings = settings
        self.clock = clock

    def routes(self) -> Mapping[str, Route]:
        return {"join": Route(at_table=self.join), "addbot": Route(at_table=self.addbot),
                "leave": Route(at_table=self.leave), "kick": Route(at_table=self.kick),
                "sitout": Route(at_table=self.sitout), "back": Route(at_table=self.back)}

    async def mark_reachable(self, *, platform: str, user: str) -> int:
        """The user can get private messages now: the flag cleared on their seats at the tables held here,
        and the cards of any hand they are in sent. Returns how many seats changed."""
        changed = 0
        for rt in list(self.tables.values()):
            if rt.table.platform != platform:
                continue
            async with rt.lock:
                seat = rt.table.seat_of(user)
                if seat is None or not seat.unreachable or rt.closed:
                    continue
                seat.unreachable = False
                with self.dealer.fenced(rt):
                    try:
                        async with self.store.atomic() as tx:
                            await tx.save_seat(rt.table.id, seat)
                    except LeaseLost:
                        self.dealer.lost(rt)
                        continue
                changed += 1
                player = rt.engine_seat(user)
                if rt.playing and player is not None:
                    await self.output.send_cards(rt, player)
        return changed

    async def join(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        table = rt.table
        if table.seat_of(msg.user) is not None:
            raise Refusal("refuse.seated", code="already_seated")
        if table.closing:
            raise Refusal("refuse.closing")
        seat_no = table.free_seat()
        if seat_no is None:
            raise Refusal("refuse.full")
        requested = int(command.args[0]) if command.args else None
        if table.tournament is None and not (msg.admin or msg.user == table.creator) \
                and await rebuys.approving(self.store, rt):
            return await self._ask_to_join(rt, msg, requested)
        return await self.seat_and_welcome(rt, user=msg.user, name=msg.name, requested=requested,
                                           tr=self.output.tr(msg), seat_no=seat_no)

    async def _ask_to_join(self, rt: Runtime, msg: Inbound, requested: int | None) -> Reply:
        """'config approve=on': the join is a request for the creator or an admin (stored, then shown)."""
        table = rt.table
        if await rebuys.open_request_of(self.store, table_id=table.id, user=msg.user) is not None:
            raise Refusal("approval.refuse_pending")
        name = _unique_name(table, msg.name)
        async with self.store.atomic() as tx:
            request_id = await rebuys.add_request(tx, table_id=table.id, user=msg.user, name=name, kind="join",
                                                  amount=requested, now=self.clock.now())
        await rebuys.post_request(self.output.messenger, self.store, rt=rt, request_id=request_id, name=name,
                                  kind="join", amount=requested)
        return Reply(self.output.tr(msg)("approval.reply_asked"), private=True)

    async def seat_and_welcome(self, rt: Runtime, *, user: str, name: str, requested: int | None, tr: Translator,
                               seat_no: int, within: Callable[[Tx], Awaitable[None]] | None = None) -> Reply:
        """Seat the player (``within``: more to store with the seat), say so, welcome them privately; the
        answer to the player, in ``tr``'s language."""
        table = rt.table
        seat = await self._seat_player(rt, user=user, name=_unique_name(table, name), requested=requested,
                                       is_bot=False, seat_no=seat_no, within=within)
        await self.output.say(rt, "line.sits", name=seat.name, chips=chips_field(seat.stack))
        try:
            reachable = await self.output.messenger.send_private(
                platform=table.platform, user=user, text=tr("dm.welcome", game=render.short_game_text(table, tr),
                                                       chips=render.chips(seat.stack, tr)))
        except Exception:
            log.exception("table %s: the welcome message to %s failed", table.id, user)
            reachable = True  # not known to be closed: the next card will tell
        if not reachable:
            await self.output.mark_unreachable(rt, seat)
        await self.output.publish(rt)
        await self.dealer.schedule_next(rt)
        if not reachable:
            return Reply(tr("reply.seated_unreachable", chips=render.chips(seat.stack, tr)), private=True,
                         code="unreachable")
        return Reply(tr("reply.seated", chips=render.chips(seat.stack, tr)), code="seated")

    async def _seat_player(self, rt: Runtime, *, user: str, name: str, requested: int | None, is_bot: bool,
                           seat_no: int, within: Callable[[Tx], Awaitable[None]] | None = None) -> Seat:
        table = rt.table
        minimum = table.stakes.big_bet
        default = BUY_IN_BIG_BETS * table.stakes.big_bet
        now = self.clock.now()
        key = updates.pending() if is_bot else None  # the platform update that asked for the bot, if any
        async with self.store.atomic() as tx:
            # The update's done mark commits with the bot's seat: a retry of an 'addbot' whose worker died
            # after seating it finds it done, and seats no second bot (a player's own join is refused twice).
            if key is not None and not await updates.mark_applied(tx, key):
                raise Refusal("refuse.applied_already", code="applied_already")
            if is_bot:  # a house bot has no wallet: it buys in from the house bots' bankroll (bot/chips/ledger.py)
                balance = default
            else:
                balance = await wallets.ensure_wallet(tx, community=table.community, user=user, name=name,
                                                      balance=self.settings.starting_balance, now=now)
                balance = await refilled(tx, community=table.community, user=user, balance=balance, needed=minimum,
                                         starting=self.settings.starting_balance, now=now)
            buy_in = requested if requested is not None else min(balance, default)
            if buy_in < minimum:
                raise Refusal("refuse.buy_in_min", minimum=minimum, chips=chips_field(balance))
            if buy_in > balance:
                raise Refusal("refuse.buy_in_wallet", chips=chips_field(balance))
            seat = Seat(seat_no=seat_no, user=user, name=name, stack=buy_in, is_bot=is_bot)
            await wallets.buy_in(tx, table_id=table.id, community=table.community, user=user, amount=buy_in, now=now,
                                 house=is_bot)
            await tx.save_seat(table.id, seat)
            if within is not None:
                await within(tx)
        if key is not None:
            key.marked = True
        table.seats[seat_no] = seat
        return seat

    async def addbot(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        require_owner(rt, msg)  # a bot is the owner's to seat: it may start a game or take a name
        table = rt.table
        if table.closing:
            raise Refusal("refuse.closing")
        seat_no = table.free_seat()
        if seat_no is None:
            raise Refusal("refuse.full")
        if command.args and table.seat_named(str(command.args[0])) is not None:
            raise Refusal("refuse.name_taken", name=command.args[0])
        base = str(command.args[0]) if command.args else f"Bot{seat_no + 1}"
        name = _unique_name(table, base)
        seat = await self._seat_player(rt, user=f"bot:{name.lower()}", name=name, requested=None, is_bot=True,
                                       seat_no=seat_no)
        await self.output.say(rt, "line.bot_sits", name=seat.name, chips=chips_field(seat.stack))
        await self.output.publish(rt)
        await self.dealer.schedule_next(rt)
        return Reply(self.output.tr(msg)("reply.bot_seated", name=seat.name))

    async def leave(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        seat = rt.table.seat_of(msg.user)
        if seat is None:
            raise Refusal("refuse.not_seated")
        return await self._remove(rt, seat, msg, kicked=False)

    async def kick(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        require_owner(rt, msg)
        seat = rt.table.seat_named(str(command.args[0]))
        if seat is None:
            raise Refusal("refuse.nobody_named", name=repr(command.args[0]))
        return await self._remove(rt, seat, msg, kicked=True)

    async def _remove(self, rt: Runtime, seat: Seat, msg: Inbound, *, kicked: bool) -> Reply:
        hand = rt.hand
        player = rt.engine_seat(seat.user)
        if hand is not None and not hand.is_over and player is not None:
            # Dealt into the hand in progress (folded or not): the seat's chips are known only when
            # it ends, so the seat is kept and cashed out then, once, by the settlement.
            folded = hand.folded[player]
            if kicked:
                return await self._kick_after(rt, seat, msg, folded=folded)
            if not seat.leaving:
                seat.leaving = True
                async with self.store.atomic() as tx:
                    await tx.save_seat(rt.table.id, seat)
                await self.output.say(rt, "line.leaves_after", name=seat.name)
                if hand.actor == player:
                    await self.dealer.apply(rt, hand.default_action(), by_timeout=False)
            return Reply(self.output.tr(msg)("reply.leaving_folded" if folded else "reply.leaving"), private=True)
        async with self.store.atomic() as tx:
            await wallets.leave_seat(tx, table_id=rt.table.id, community=rt.table.community, seat_no=seat.seat_no,
                                     user=seat.user, amount=seat.stack, kind="kick" if kicked else "cash-out",
                                     now=self.clock.now())
        del rt.table.seats[seat.seat_no]
        await self.output.say(rt, "line.kicked_with" if kicked else "line.leaves_with", name=seat.name,
                              chips=chips_field(seat.stack))
        await self.output.publish(rt)
        tr = self.output.tr(msg)
        if kicked:
            return Reply(tr("reply.kicked", name=seat.name, chips=render.chips(seat.stack, tr)), private=True)
        return Reply(tr("reply.cashed_out", chips=render.chips(seat.stack, tr)), private=True)

    async def _kick_after(self, rt: Runtime, seat: Seat, msg: Inbound, *, folded: bool) -> Reply:
        """A kick during a hand the player was dealt into: it takes effect when the hand ends. Until
        then nothing changes for them (their turn, timer and choices: a kick must not decide a pot);
        the settlement removes the seat and cashes it out. A second kick changes nothing."""
        if not (seat.kicked or seat.leaving):
            seat.kicked = True
            async with self.store.atomic() as tx:
                await tx.save_seat(rt.table.id, seat)
            await self.output.say(rt, "line.kicked_after", name=seat.name)
            if not seat.is_bot and not seat.unreachable:  # told privately too, in their language
                tr = self.output.translator_for(platform=rt.table.platform, user=seat.user)
                try:
                    await self.output.messenger.send_private(platform=rt.table.platform, user=seat.user,
                                                          text=tr("dm.kicked_after"))
                except Exception:  # output never stops the table: the table was told
                    log.exception("table %s: telling %s of the kick failed", rt.table.id, seat.user)
        return Reply(self.output.tr(msg)("reply.kicked_after_folded" if folded else "reply.kicked_after"),
                     private=True)

    async def sitout(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """'sitout': skip the next hands; 'sitout NAME' (creator or admin): put that player away, until
        they say 'back'."""
        by_host = bool(command.args)
        if by_host:
            require_owner(rt, msg)
            seat = rt.table.seat_named(str(command.args[0]))
            if seat is None:
                raise Refusal("refuse.nobody_named", name=repr(command.args[0]))
            by_host = seat.user != msg.user
        else:
            seat = seated(rt, msg)
        if seat.leaving or seat.kicked:  # going when the hand ends: sitting out or back changes nothing
            raise Refusal("refuse.leaving_after")
        if seat.sitting_out:
            raise Refusal("host.refuse_already_out" if by_host else "refuse.already_out", name=seat.name)
        seat.sitting_out = True
        async with self.store.atomic() as tx:
            await tx.save_seat(rt.table.id, seat)
        await self.output.say(rt, "host.line_put_out" if by_host else "line.sits_out", name=seat.name)
        if rt.table.tournament is not None and rt.playing:
            self.dealer.arm_turn(rt)  # in a sit-and-go a sat-out player's turn is taken at once
        await self.output.publish(rt)
        if by_host:
            if not seat.is_bot and not seat.unreachable:  # told privately, in their language
                tr = self.output.translator_for(platform=rt.table.platform, user=seat.user)
                try:
                    await self.output.messenger.send_private(platform=rt.table.platform, user=seat.user,
                                                          text=tr("host.dm_put_out"))
                except Exception:  # output never stops the table: the table was told
                    log.exception("table %s: telling %s they were put out failed", rt.table.id, seat.user)
            return Reply(self.output.tr(msg)("host.reply_put_out", name=seat.name), private=True)
        return Reply(self.output.tr(msg)("reply.sit_out"), private=True)

    async def back(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        seat = seated(rt, msg)
        if seat.leaving or seat.kicked:
            raise Refusal("refuse.leaving_after")
        if not seat.sitting_out:
            raise Refusal("refuse.not_out")
        seat.sitting_out, seat.timeouts = False, 0
        async with self.store.atomic() as tx:
            await tx.save_seat(rt.table.id, seat)
        await self.output.say(rt, "line.back", name=seat.name)
        await self.output.publish(rt)
        await self.dealer.schedule_next(rt)
        return Reply(self.output.tr(msg)("reply.back"), private=True)




def _unique_name(table: Table, name: str) -> str:
    """The name shown for a new seat (see :func:`~bot.core.names.unique_name`), unlike any other at the table."""
    return unique_name(name, taken=[s.name for s in table.seats.values()])


async def refilled(tx: Tx, *, community: str, user: str, balance: int, needed: int, starting: int,
                   now: float) -> int:
    """The wallet's ``balance``, refilled to ``starting`` (from the house) first if its player is broke:
    short of ``needed`` (the least buy-in of the table, or a sit-and-go's), with no chips anywhere
    else in the community, and not refilled yet today (UTC). Once a day, for 'join' and 'register' alike."""
    today = datetime.fromtimestamp(now, UTC).date().isoformat()
    if balance < min(needed, starting) and await wallets.refilled_on(tx, community=community, user=user) != today \
            and not await _has_chips_elsewhere(tx, community, user):
        await wallets.refill(tx, community=community, user=user, balance=starting, day=today, now=now)
        return starting
    return balance


async def _has_chips_elsewhere(tx: Tx, community: str, user: str) -> bool:
    """Whether the user, short in the wallet, still has chips in the community, and so is not broke:
    at an open table (a hand in progress counts at its start, as the seats in memory do), or as a
    sit-and-go's buy-in, registered or in play, or a prize won there and not paid yet (a place with
    no prize is the buy-in lost). Read from the database, where every process's tables are."""
    row = await tx.one(
        "SELECT 1 FROM seats s JOIN tables t ON t.id = s.table_id WHERE t.open = 1 "
        "AND t.community = ? AND s.user_id = ? AND s.stack > 0 "
        "UNION ALL SELECT 1 FROM tourney_players p JOIN tournaments u ON u.id = p.tournament_id "
        "WHERE u.community = ? AND p.user_id = ? AND u.status IN ('registering', 'running') "
        "AND (p.place IS NULL OR p.prize > 0) LIMIT 1", (community, user, community, user))
    return row is not None
