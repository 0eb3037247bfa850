"""The application: every table's commands, hands, timers and chips, behind one funnel.

``StudBot.handle(Inbound)`` is the single entry point for every platform. A table
handles its commands one at a time (a lock per table); tables never wait on each
other. Every accepted change is committed to SQLite before it is acknowledged or
shown, and on start every open table and hand in progress is restored, timers
included.

Errors come in three tiers: malformed input gets usage text
(:class:`~bot.commands.UsageError`); a rule or state violation gets the reason
(:class:`Refusal`, or the engine's own errors); a bug is logged with its
traceback and the user gets a short apology, while the table keeps running.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from engine import Action, EngineError, Stakes, StakesError

from . import render
from .commands import RULES_TEXT, Command, UsageError, help_text, parse
from .config import Settings
from .dealer import Dealer, Runtime, cancel_timers
from .i18n import Translator, language_of, translator
from .model import VIEWS, Seat, Table
from .ports import Clock, Inbound, Messenger, Reply
from .store import Store

log = logging.getLogger(__name__)

MIN_TIMER, MAX_TIMER = 10, 600
BUY_IN_BIG_BETS = 20


class Refusal(Exception):
    """A friendly reason why a well-formed command cannot be done now."""


class StudBot(Dealer):
    """Tables in every channel of every platform, sharing one store, messenger and clock."""

    def __init__(self, *, store: Store, messenger: Messenger, clock: Clock, settings: Settings,
                 rng: random.Random | None = None) -> None:
        self.store = store
        self.messenger = messenger
        self.clock = clock
        self.settings = settings
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.bot_rng = random.Random(self.rng.getrandbits(64))
        self.tables: dict[str, Runtime] = {}
        self._opening = asyncio.Lock()  # two 'new' in one channel at once: one table
        self.languages: dict[tuple[str, str], tuple[str, bool]] = {}
        """(platform, user) -> (language, chosen with 'lang'): for private messages sent later."""

    # ------------------------------------------------------------------ start

    async def start(self) -> None:
        """Restore every open table and hand in progress, and re-arm their timers."""
        for table in await self.store.open_tables():
            rt = Runtime(table=table)
            self.tables[f"{table.platform}:{table.channel}"] = rt
            async with rt.lock:
                await self._restore(rt)

    async def _restore(self, rt: Runtime) -> None:
        playing = await self.store.playing_hand(rt.table.id)
        if playing is not None:
            setup = playing.setup
            hand = self._build_hand(setup)
            for action in playing.actions:
                hand.act(Action(action))
            rt.hand, rt.hand_id, rt.setup = hand, playing.id, setup
            rt.seen = len(hand.events)
            rt.deadline = playing.deadline
            log.info("table %s: restored hand #%s after %d actions", rt.table.id, setup.hand_no, len(playing.actions))
            if hand.is_over:
                await self._finish_hand(rt)
            else:
                self._arm_turn(rt)
            await self._publish(rt)
        elif rt.table.running and rt.table.next_hand_at is not None:
            self._arm_next_hand(rt, rt.table.next_hand_at)

    async def mark_reachable(self, *, platform: str, user: str) -> int:
        """The user can now get private messages (say, they opened the private chat):
        clear the flag on their seats and send the cards of any hand they are in.
        Returns how many seats changed."""
        changed = 0
        for rt in list(self.tables.values()):
            if rt.table.platform != platform:
                continue
            async with rt.lock:
                seat = rt.table.seat_of(user)
                if seat is None or not seat.unreachable:
                    continue
                seat.unreachable = False
                async with self.store.atomic() as tx:
                    await tx.save_seat(rt.table.id, seat)
                changed += 1
                es = rt.engine_seat(user)
                if rt.hand is not None and not rt.hand.is_over and es is not None:
                    await self._send_cards(rt, es)
        return changed

    def translator_for(self, *, platform: str, user: str, locale: str | None = None) -> Translator:
        """The language to answer ``user`` in: the one they chose with 'lang', else their
        platform's locale (``locale``, or the last one seen), else English."""
        known = self.languages.get((platform, user))
        if known is not None and known[1]:
            return translator(known[0])
        return translator(language_of(locale) or (known[0] if known else None))

    async def close(self) -> None:
        for rt in self.tables.values():
            cancel_timers(rt)

    # ------------------------------------------------------------------ the funnel

    async def handle(self, msg: Inbound) -> Reply:
        """Answer one command. Never raises: bad input and bugs become replies."""
        try:
            command = parse(msg.text)
        except UsageError as exc:
            return Reply(str(exc), private=True, ok=False)
        try:
            return await self._dispatch(msg, command)
        except UsageError as exc:
            return Reply(str(exc), private=True, ok=False)
        except Refusal as exc:
            return Reply(str(exc), private=True, ok=False)
        except EngineError as exc:
            return Reply(_friendly(str(exc)), private=True, ok=False)
        except Exception:
            log.exception("command %r in %s:%s failed", msg.text, msg.platform, msg.channel)
            return Reply("Sorry, something went wrong with that command. The table goes on.", private=True, ok=False)

    async def _dispatch(self, msg: Inbound, command: Command) -> Reply:
        name = command.name
        if name == "help":
            return Reply(help_text(str(command.args[0]) if command.args else None), private=True)
        if name == "rules":
            return Reply(RULES_TEXT, private=True)
        if name == "top":
            return await self._top(msg)
        if name == "new":
            return await self._new(msg)
        rt = self.tables.get(f"{msg.platform}:{msg.channel}")
        if rt is None:
            raise Refusal("There is no table in this channel. Type 'new' to open one.")
        async with rt.lock:
            if rt.closed:
                raise Refusal("This table has just closed. Type 'new' to open another.")
            handler: Callable[[Runtime, Inbound, Command], Awaitable[Reply]] = getattr(
                self, "_cmd_" + name.replace("-", "_"), self._cmd_action)
            return await handler(rt, msg, command)

    # ------------------------------------------------------------------ commands

    async def _new(self, msg: Inbound) -> Reply:
        key = f"{msg.platform}:{msg.channel}"
        async with self._opening:
            if key in self.tables:
                raise Refusal("This channel already has a table. Type 'join' to sit down.")
            stakes = Stakes()
            async with self.store.atomic() as tx:
                table_id = await tx.create_table(
                    platform=msg.platform, community=_community(msg), channel=msg.channel, creator=msg.user,
                    stakes=stakes, timer=self.settings.turn_timer, now=self.clock.now())
            table = Table(id=table_id, platform=msg.platform, community=_community(msg), channel=msg.channel,
                          creator=msg.user, stakes=stakes, timer=self.settings.turn_timer)
            rt = Runtime(table=table)
            self.tables[key] = rt
        async with rt.lock:
            await self._say(rt, f"{msg.name} opens a Seven Card Stud Hi-Lo table ({render.stakes_text(table)}).")
            await self._publish(rt, new=True)
        return Reply("Table open. Type 'join' to sit down, 'start' to deal.")

    async def _cmd_join(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        table = rt.table
        if table.seat_of(msg.user) is not None:
            raise Refusal("You are already seated here.")
        seat_no = table.free_seat()
        if seat_no is None:
            raise Refusal("The table is full (8 seats).")
        requested = int(command.args[0]) if command.args else None
        seat = await self._seat_player(rt, user=msg.user, name=_unique_name(table, msg.name), requested=requested,
                                       is_bot=False, seat_no=seat_no)
        await self._say(rt, f"{seat.name} sits down with {render.chips(seat.stack)}.")
        try:
            reachable = await self.messenger.send_private(
                platform=table.platform, user=msg.user,
                text=f"You are seated at the Stud Hi-Lo table with {render.chips(seat.stack)}. "
                     "Your cards will come here.")
        except Exception:
            log.exception("table %s: the welcome message to %s failed", table.id, msg.user)
            reachable = True  # not known to be closed: the next card will tell
        if not reachable:
            await self._mark_unreachable(rt, seat)
        await self._publish(rt)
        await self._maybe_schedule_next(rt)
        if not reachable:
            return Reply(f"Seated with {render.chips(seat.stack)}. I cannot send you private messages, so "
                         "your cards will be under 'cards' (My cards) for the rest of the game.", private=True)
        return Reply(f"Seated with {render.chips(seat.stack)}.")

    async def _seat_player(self, rt: Runtime, *, user: str, name: str, requested: int | None, is_bot: bool,
                           seat_no: int) -> Seat:
        table = rt.table
        minimum = table.stakes.big_bet
        default = BUY_IN_BIG_BETS * table.stakes.big_bet
        today = datetime.fromtimestamp(self.clock.now(), UTC).date().isoformat()
        async with self.store.atomic() as tx:
            balance = await tx.ensure_wallet(community=table.community, user=user, name=name,
                                             balance=self.settings.starting_balance)
            if balance < minimum and await tx.refilled_on(community=table.community, user=user) != today \
                    and not self._has_chips_seated(table.community, user):
                await tx.refill(community=table.community, user=user, balance=self.settings.starting_balance,
                                day=today)
                balance = self.settings.starting_balance
            buy_in = requested if requested is not None else min(balance, default)
            if buy_in < minimum:
                raise Refusal(f"The smallest buy-in here is {minimum} (the big bet); "
                              f"you have {render.chips(balance)}, and the wallet refills once a day.")
            if buy_in > balance:
                raise Refusal(f"You have only {render.chips(balance)} in your wallet.")
            seat = Seat(seat_no=seat_no, user=user, name=name, stack=buy_in, is_bot=is_bot)
            await tx.move_chips(community=table.community, user=user, delta=-buy_in)
            await tx.save_seat(table.id, seat)
        table.seats[seat_no] = seat
        return seat

    def _has_chips_seated(self, community: str, user: str) -> bool:
        return any(rt.table.community == community and (s := rt.table.seat_of(user)) is not None and s.stack > 0
                   for rt in self.tables.values())

    async def _cmd_addbot(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        table = rt.table
        seat_no = table.free_seat()
        if seat_no is None:
            raise Refusal("The table is full (8 seats).")
        if command.args and table.seat_named(str(command.args[0])) is not None:
            raise Refusal(f"{command.args[0]} is already seated here.")
        base = str(command.args[0]) if command.args else f"Bot{seat_no + 1}"
        name = _unique_name(table, base)
        seat = await self._seat_player(rt, user=f"bot:{name.lower()}", name=name, requested=None, is_bot=True,
                                       seat_no=seat_no)
        await self._say(rt, f"House bot {seat.name} sits down with {render.chips(seat.stack)}.")
        await self._publish(rt)
        await self._maybe_schedule_next(rt)
        return Reply(f"{seat.name} is seated.")

    async def _cmd_leave(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        seat = rt.table.seat_of(msg.user)
        if seat is None:
            raise Refusal("You are not seated at this table.")
        return await self._remove(rt, seat, reason="leaves")

    async def _cmd_kick(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        self._require_owner(rt, msg)
        seat = rt.table.seat_named(str(command.args[0]))
        if seat is None:
            raise Refusal(f"Nobody called {command.args[0]!r} sits here.")
        return await self._remove(rt, seat, reason="is removed from the table")

    async def _remove(self, rt: Runtime, seat: Seat, *, reason: str) -> Reply:
        hand = rt.hand
        es = rt.engine_seat(seat.user)
        if hand is not None and not hand.is_over and es is not None and not hand.folded[es]:
            seat.leaving = True
            async with self.store.atomic() as tx:
                await tx.save_seat(rt.table.id, seat)
            await self._say(rt, f"{seat.name} {reason} after this hand.")
            if hand.actor == es:
                await self._apply(rt, hand.default_action(), by_timeout=False)
            return Reply("You will be checked or folded, and cashed out when the hand ends.", private=True)
        async with self.store.atomic() as tx:
            await tx.move_chips(community=rt.table.community, user=seat.user, delta=seat.stack)
            await tx.remove_seat(rt.table.id, seat.seat_no)
        del rt.table.seats[seat.seat_no]
        await self._say(rt, f"{seat.name} {reason} with {render.chips(seat.stack)}.")
        await self._publish(rt)
        return Reply(f"{render.chips(seat.stack)} back in the wallet.", private=True)

    async def _cmd_sitout(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        seat = self._seat(rt, msg)
        if seat.sitting_out:
            raise Refusal("You are already sitting out.")
        seat.sitting_out = True
        async with self.store.atomic() as tx:
            await tx.save_seat(rt.table.id, seat)
        await self._say(rt, f"{seat.name} sits out from the next hand.")
        await self._publish(rt)
        return Reply("You sit out from the next hand. Type 'back' to play again.", private=True)

    async def _cmd_back(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        seat = self._seat(rt, msg)
        if not seat.sitting_out:
            raise Refusal("You are not sitting out.")
        seat.sitting_out, seat.timeouts = False, 0
        async with self.store.atomic() as tx:
            await tx.save_seat(rt.table.id, seat)
        await self._say(rt, f"{seat.name} is back.")
        await self._publish(rt)
        await self._maybe_schedule_next(rt)
        return Reply("You play from the next hand.", private=True)

    async def _cmd_start(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        if rt.hand is not None and not rt.hand.is_over:
            raise Refusal("A hand is already being played.")
        if rt.table.running:
            raise Refusal("The table is already dealing; the next hand comes by itself.")
        if len(rt.table.ready_seats()) < 2:
            raise Refusal("Two players with chips are needed to start.")
        rt.table.running = True
        await self._start_hand(rt)
        return Reply("Dealing.")

    async def _cmd_stop(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        self._require_owner(rt, msg)
        cancel_timers(rt)
        table = rt.table
        async with self.store.atomic() as tx:
            if rt.hand_id is not None and rt.hand is not None and not rt.hand.is_over:
                await tx.void_hand(hand_id=rt.hand_id, now=self.clock.now())
            for seat in table.seats.values():
                await tx.move_chips(community=table.community, user=seat.user, delta=seat.stack)
                await tx.remove_seat(table.id, seat.seat_no)
            await tx.close_table(table.id)
        voided = rt.hand is not None and not rt.hand.is_over
        rt.closed = True
        del self.tables[f"{table.platform}:{table.channel}"]
        await self._say(rt, ("The hand in progress is called off; " if voided else "")
                        + "the table is closed and every stack is back in its wallet.")
        return Reply("Table closed.")

    async def _cmd_config(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        self._require_owner(rt, msg)
        table = rt.table
        o = {k: v for k, v in command.options.items() if isinstance(v, int)}
        view = command.options.get("view", table.view)
        if view not in VIEWS:
            raise Refusal(f"The view is {' or '.join(VIEWS)}.")
        s = table.stakes
        try:
            stakes = Stakes(ante=o.get("ante", s.ante), bring_in=o.get("bring_in", s.bring_in),
                            small_bet=o.get("small", s.small_bet), big_bet=o.get("big", s.big_bet))
        except StakesError as exc:
            raise Refusal(f"Those stakes do not work: {exc}") from None
        timer = o.get("timer", table.timer)
        if not MIN_TIMER <= timer <= MAX_TIMER:
            raise Refusal(f"The timer must be {MIN_TIMER} to {MAX_TIMER} seconds.")
        changed_view = view != table.view
        table.stakes, table.timer, table.view = stakes, timer, str(view)
        async with self.store.atomic() as tx:
            await tx.save_table(table)
        playing = rt.hand is not None and not rt.hand.is_over
        if set(o):
            await self._say(rt, f"Table set to {render.stakes_text(table)}"
                            + (" from the next hand." if playing else "."))
        if changed_view:
            await self._say(rt, f"The board is shown as {'an image' if table.view == 'image' else 'text'} now.")
        await self._publish(rt)
        return Reply("Done.")

    async def _cmd_cards(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        hand, es = rt.hand, rt.engine_seat(msg.user)
        if hand is None or es is None:
            raise Refusal("You have no cards in a hand at this table right now.")
        text = render.private_view(hand, es, hand_no=rt.table.hand_no)
        return Reply(text, private=True)

    async def _cmd_board(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        await self._publish(rt, new=True)
        return Reply("")

    async def _cmd_history(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        rows = await self.store.recent_hands(rt.table.id, int(command.args[0]))
        if not rows:
            return Reply("No hand has finished at this table yet.", private=True)
        return Reply("\n".join(f"#{no}: {summary}" for no, summary in rows), private=True)

    async def _top(self, msg: Inbound) -> Reply:
        rows = await self.store.leaderboard(_community(msg))
        if not rows:
            return Reply("Nobody has played here yet.", private=True)
        return Reply("\n".join(f"{i}. {name} {total}" for i, (name, total) in enumerate(rows, 1)), private=True)

    async def _cmd_action(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        hand = rt.hand
        if hand is None or hand.is_over:
            raise Refusal("No hand is being played right now.")
        es = rt.engine_seat(msg.user)
        if es is None:
            raise Refusal("You are not in this hand.")
        if command.turn is not None and command.turn != rt.turn:
            raise Refusal("That turn is over.")
        if hand.actor != es:
            raise Refusal(f"It is {rt.names[hand.actor] if hand.actor is not None else 'nobody'}'s turn, not yours.")
        action = Action.from_str(command.name)
        hand.verify(action, seat=es)
        await self._apply(rt, action, by_timeout=False)
        return Reply("")

    # ------------------------------------------------------------------ helpers

    def _seat(self, rt: Runtime, msg: Inbound) -> Seat:
        seat = rt.table.seat_of(msg.user)
        if seat is None:
            raise Refusal("You are not seated at this table.")
        return seat

    def _require_owner(self, rt: Runtime, msg: Inbound) -> None:
        if not (msg.admin or msg.user == rt.table.creator):
            raise Refusal("Only the table's creator or an admin can do that.")


def _community(msg: Inbound) -> str:
    """Wallets are per community; ids are only unique within a platform."""
    return f"{msg.platform}:{msg.community}"


def _unique_name(table: Table, name: str) -> str:
    base = " ".join(name.split())[:24] or "player"
    taken = {s.name.lower() for s in table.seats.values()}
    candidate, n = base, 2
    while candidate.lower() in taken:
        candidate, n = f"{base}{n}", n + 1
    return candidate


def _friendly(message: str) -> str:
    """Engine messages are precise; drop the parts that only matter to developers."""
    return message[0].upper() + message[1:] if message else message
