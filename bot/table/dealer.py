"""The life of a hand at a table: deal, take decisions, settle, and the timers between.

:class:`Dealer` is the half of :class:`~bot.app.StudBot` that runs hands; the
other half (the command funnel) is in ``service.py``. Every decision is committed
before it is played and shown; output never stops a table: a rendering or
messenger failure is logged and the table goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Protocol

from bot.chips import wallets
from bot.chips.ledger import Transfer, hand_transfers, net_by_account, seat_account
from bot.core.config import Settings
from bot.core.errors import Refusal
from bot.core.i18n import Translator, language_of, translator
from bot.core.lifecycle import Work
from bot.core.model import HandSetup, Player, Seat, Table
from bot.core.ports import BoardView, Clock, Messenger, TableAddress, TimerHandle, deferring
from bot.platform import updates
from bot.stats.rows import record_hand
from bot.store import Store, Tx
from bot.store.fence import LeaseLost, TableMoved
from bot.table import delivery
from bot.table.fairness import Fairness, Revealed, deck_line, revealed_seeds, short_hex
from bot.text import images, render, results
from engine import Action, Deck, DeckDealer, FairRecord, Hand
from engine.cards import CARD_TEXTS, Card
from engine.events import CardDealt, CommunityCardDealt, Event
from engine.handfile import hand_file_of

log = logging.getLogger(__name__)

@dataclass
class Runtime:
    """A table in memory: its state, the hand in progress, its timers."""

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
    deal after the table's pause (:meth:`Dealer._announce_next`, or the settlement of the last hand): the
    only hand a deal may deal at once; any other has its commitment shown and waits the pause first."""
    commitment: str = ""
    """The commitment of hand :attr:`committed` (the board shows it until that hand is dealt)."""
    reveal: str | None = None
    """The table's reveal mode ('hand' or 'stop') once read: only its own 'config reveal=', run where the
    table is held, changes it (another process holding the table later restores it anew)."""
    closed: bool = False
    moved: bool = False
    """Cluster mode: another process took the table (it was dropped from this one)."""
    _players_of: tuple[object, list[str], dict[str, int]] | None = field(default=None, init=False, repr=False,
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
        return self._players()[1] if self.setup else []

    def engine_seat(self, user: str) -> int | None:
        if self.setup is None:
            return None
        return self._players()[2].get(user)

    def _players(self) -> tuple[object, list[str], dict[str, int]]:
        assert self.setup is not None
        players = self.setup.players
        known = self._players_of
        if known is None or known[0] is not players:
            seats: dict[str, int] = {}
            for i, p in enumerate(players):
                seats.setdefault(p[1], i)  # the first seat of a user, as a search in seat order finds it
            known = self._players_of = (players, [p[2] for p in players], seats)
        return known

    def seat_no(self, engine_seat: int) -> int:
        assert self.setup is not None
        return self.setup.players[engine_seat][0]

    def seat_in_hand(self, engine_seat: int) -> Seat | None:
        """The table seat of a player dealt into the hand, if they still hold it: a seat number
        alone is not enough, since someone else may have sat down there since the deal."""
        assert self.setup is not None
        seat_no, user, _, _ = self.setup.players[engine_seat]
        seat = self.table.seats.get(seat_no)
        return seat if seat is not None and seat.user == user else None

    def check_open(self) -> None:
        """Under the table's lock, before a command acts on it: still held here (cluster mode may have
        dropped it meanwhile: :class:`TableMoved`) and not closed."""
        if self.moved:
            raise TableMoved()
        if self.closed:
            raise Refusal("refuse.closed")

    @property
    def turn(self) -> str | None:
        if self.hand is None or self.hand.is_over:
            return None
        return f"{self.table.hand_no}.{len(self.hand.actions)}"



class TableHooks(Protocol):
    """What a feature adds to the life of a hand (sit-and-go tournaments: bot/tourney)."""

    async def before_deal(self, rt: Runtime) -> None:
        """Before a hand is dealt (its stakes may change)."""

    async def settled(self, rt: Runtime, tx: Tx, *, setup: HandSetup, stacks: Sequence[int],
                      now: float) -> Callable[[], Awaitable[None]] | None:
        """Inside the settlement's transaction; what to announce once it is committed."""

    def lobby(self, rt: Runtime) -> BoardView | None:
        """The board to show instead of the table's, if any."""


class TableGuard(Protocol):
    """Cluster mode (bot/cluster/cluster.py): the lease a table's writes are made under."""

    def fenced(self, rt: Runtime) -> AbstractContextManager[None]:
        """Writes for ``rt`` in the block commit only while this process holds its lease."""

    def lost(self, rt: Runtime) -> None:
        """A write for ``rt`` found its lease gone: drop the table from memory."""


class Dealer:
    """Hands, timers and output for the tables of a :class:`~bot.app.StudBot`."""

    store: Store
    messenger: Messenger
    clock: Clock
    settings: Settings
    rng: random.Random
    bot_rng: random.Random
    languages: dict[tuple[str, str], tuple[str, bool]]
    """(platform, user) -> (language, chosen with 'lang'): for private messages sent later."""
    work: Work
    """Commands and timer callbacks in flight (a stop waits for them)."""
    fair: Fairness
    """Server seeds, player seeds and reveals (provably fair decks)."""
    stopping: bool
    """Set by a stop: no command is taken and no timer acts any more."""
    deliveries: delivery.Deliveries
    hooks: TableHooks
    cluster: TableGuard | None
    tables: dict[str, Runtime]
    """The tables held here, by "platform:channel"."""

    def translator_for(self, *, platform: str, user: str, locale: str | None = None) -> Translator:
        """The language to write to ``user`` in: the one they chose with 'lang', else their
        platform's locale (``locale``, or the last one seen), else English."""
        known = self.languages.get((platform, user))
        if known is not None and known[1]:
            return translator(known[0])
        return translator(language_of(locale) or (known[0] if known else self.settings.language))

    # ------------------------------------------------------------------ hands

    def _build_hand(self, setup: HandSetup, *, cards: Sequence[Card] | None = None) -> Hand:
        """The hand ``setup`` deals (``cards``: its deck, when the caller holds it as cards already)."""
        deck = Deck.from_cards(cards if cards is not None else [Card.from_str(c) for c in setup.deck])
        players = setup.players
        return Hand(stakes=setup.stakes, names=[p[2] for p in players], stacks=[p[3] for p in players],
                    dealer=DeckDealer(deck))

    async def _start_hand(self, rt: Runtime) -> None:
        """Deal the next hand (:meth:`_deal`). A deal that fails is reported and the table waits
        (:meth:`_deal_failed`): its writes were one transaction, so nothing of it is stored."""
        before = rt.hand_id
        try:
            await self._deal(rt)
        except (LeaseLost, TableMoved):
            raise  # cluster mode: the table is another process's now
        except Exception as exc:
            if rt.hand_id != before:
                raise  # the hand is dealt and stored: what failed came after the deal
            await self._deal_failed(rt, exc)

    async def _deal_failed(self, rt: Runtime, exc: Exception) -> None:
        """After a failed deal: logged, the table stops dealing (its creator may 'start' again or
        'stop' it; a sit-and-go can be cancelled) and the channel is told."""
        table = rt.table
        log.error("table %s: dealing hand #%s failed; the table waits", table.id, table.hand_no + 1, exc_info=exc)
        rt.next_timer = _cancelled(rt.next_timer)
        table.running, table.next_hand_at = False, None
        try:
            async with self.store.atomic() as tx:
                await tx.save_table(table)
        except LeaseLost:
            raise
        except Exception:  # the table is told all the same; a restart finds it as it was before the deal
            log.exception("table %s: saving the table after the failed deal failed", table.id)
        await self._say(rt, "line.deal_failed", no=table.hand_no + 1)
        await self._publish(rt)

    async def _deal(self, rt: Runtime) -> None:
        table = rt.table
        rt.next_timer = _cancelled(rt.next_timer)
        table.next_hand_at = None
        ready = table.ready_seats()
        if len(ready) < 2:
            async with self.store.atomic() as tx:
                await tx.save_table(table)
            await self._say(rt, "line.waiting")
            return
        hand_no = table.hand_no + 1
        if rt.committed != hand_no:  # its commitment not shown here yet: show it, deal after the pause
            await self._announce_next(rt)
            return
        await self.hooks.before_deal(rt)  # a tournament sets the level's stakes
        players = [Player(s.seat_no, s.user, s.name, s.stack) for s in ready]
        now = self.clock.now()
        async with self.store.atomic() as tx:
            record = await self.fair.deal(tx, table=table, hand_no=hand_no,
                                          players=[(user, name) for _, user, name, _ in players])
            deck = record.deck()
            setup = HandSetup(hand_no=hand_no, stakes=table.stakes, players=players,
                              deck=[CARD_TEXTS[c.index] for c in deck])
            hand = self._build_hand(setup, cards=deck)  # in the transaction: if it fails, nothing is stored
            hand_id = await tx.begin_hand(table_id=table.id, setup=setup, now=now, deadline=now + table.timer)
            await tx.save_table(replace(table, hand_no=setup.hand_no))
        # The new number with the new hand, at once: a board drawn meanwhile (see _publish_board) shows
        # the last hand under its own number, never under the next one's.
        table.hand_no = setup.hand_no
        rt.hand, rt.hand_id, rt.setup, rt.seen, rt.fair = hand, hand_id, setup, 0, record
        rt.deadline = now + table.timer
        await self._say(rt, "line.hand_starts", no=setup.hand_no, names=", ".join(rt.names))
        await self._after_change(rt)

    async def _apply(self, rt: Runtime, action: Action, *, by_timeout: bool) -> None:
        """Commit one decision, then play it, render it, and arm what comes next."""
        hand, table = rt.hand, rt.table
        assert hand is not None and rt.hand_id is not None and hand.actor is not None
        es = hand.actor
        seat = rt.seat_in_hand(es)
        now = self.clock.now()
        deadline = now + table.timer
        seq, seat_no = len(hand.actions), rt.seat_no(es)
        timeouts = (seat.timeouts + 1 if by_timeout else 0) if seat is not None else 0
        # the platform update that brought it, unless an earlier effect of the same command marked it
        key = None if by_timeout else updates.pending()
        if key is not None or (seat is not None and timeouts != seat.timeouts):
            async with self.store.atomic() as tx:
                # the update's done mark commits with its action: a retry of it finds it done
                if key is not None and not await updates.mark_applied(tx, key):
                    raise Refusal("refuse.applied_already", code="applied_already")
                await tx.add_action(hand_id=rt.hand_id, seq=seq, action=action.value, seat_no=seat_no,
                                    by_timeout=by_timeout, now=now, deadline=deadline)
                if seat is not None and timeouts != seat.timeouts:
                    await tx.save_seat(table.id, replace(seat, timeouts=timeouts,
                                                         sitting_out=seat.sitting_out or timeouts >= 2))
            if key is not None:
                key.marked = True
            if seat is not None and timeouts != seat.timeouts:
                seat.timeouts = timeouts
                if timeouts >= 2:
                    seat.sitting_out = True
        else:  # the usual case: one INSERT, its own transaction, one round trip
            await self.store.record_action(hand_id=rt.hand_id, seq=seq, action=action.value, seat_no=seat_no,
                                           by_timeout=by_timeout, now=now, deadline=deadline)
        rt.deadline = deadline
        hand.act(action)
        if by_timeout and seat is not None:
            await self._say(rt, "line.timed_out_sitting_out" if seat.sitting_out else "line.timed_out", name=seat.name)
        await self._after_change(rt)

    async def _after_change(self, rt: Runtime) -> None:
        hand = rt.hand
        assert hand is not None
        events = hand.events[rt.seen:]
        rt.seen = len(hand.events)
        try:
            lines = render.describe(events, hand, rt.names, rt.tr)
        except Exception:  # a rendering bug must not stop the hand
            log.exception("table %s: describing %d events failed", rt.table.id, len(events))
            lines = []
        if hand.is_over and rt.fair is not None and rt.setup is not None:  # the seed with the result
            lines.append(await self._seed_line(rt, rt.fair, hand_no=rt.setup.hand_no))
        if lines:
            await self._say_text(rt, "\n".join(lines))
        if (lines or hand.is_over) and rt.hand_id is not None:
            self.deliveries.track(table=rt.address, hand_id=rt.hand_id, events=rt.seen, final=hand.is_over)
        for es in _dealt_to(events, hand):
            await self._send_cards(rt, es)
        if hand.is_over:
            await self._finish_hand(rt)
        else:
            self._arm_turn(rt)
        await self._publish(rt)

    async def _seed_line(self, rt: Runtime, record: FairRecord, *, hand_no: int) -> str:
        """The last line of a hand's result: its server seed, short (``verify N`` gives it whole), or
        that it is revealed when the table stops (``config reveal=stop``)."""
        if await self._read_reveal(rt) == "hand" and record.server_seed is not None:
            return rt.tr("fair.result_seed", seed=short_hex(record.server_seed.hex()), no=hand_no)
        return rt.tr("fair.result_seed_at_stop", no=hand_no)

    async def _announce_again(self, rt: Runtime, past: delivery.Unannounced) -> None:
        """The last lines of a finished hand that a crash kept from the table."""
        hand = self._build_hand(past.setup)
        for action in past.actions:
            hand.act(Action(action))
        try:
            lines = render.describe(hand.events[past.events:], hand, [p[2] for p in past.setup.players], rt.tr)
        except Exception:
            log.exception("table %s: describing hand %s again failed", rt.table.id, past.hand_id)
            lines = []
        if lines:
            await self._say_text(rt, "\n".join([rt.tr("line.restored"), *lines]))
        self.deliveries.track(table=rt.address, hand_id=past.hand_id, events=len(hand.events), final=True)

    async def _send_cards(self, rt: Runtime, es: int) -> None:
        assert rt.hand is not None and rt.setup is not None
        seat = rt.seat_in_hand(es)
        if seat is None or seat.is_bot or seat.unreachable:
            return
        tr = self.translator_for(platform=rt.table.platform, user=seat.user)
        text = render.private_view(rt.hand, es, hand_no=rt.table.hand_no, tr=tr)
        try:
            ok = await self.messenger.send_private(platform=rt.table.platform, user=seat.user, text=text,
                                                   image=self._private_image(rt, es, tr))
        except Exception:  # output must never stop the table: the player can still ask with 'cards'
            log.exception("table %s: sending %s their cards failed", rt.table.id, seat.user)
            return
        if not ok:
            await self._mark_unreachable(rt, seat)

    async def _mark_unreachable(self, rt: Runtime, seat: Seat) -> None:
        seat.unreachable = True
        async with self.store.atomic() as tx:
            await tx.save_seat(rt.table.id, seat)
        await self._say(rt, "line.unreachable", name=seat.name)

    async def _finish_hand(self, rt: Runtime) -> None:
        hand, table, setup = rt.hand, rt.table, rt.setup
        assert hand is not None and setup is not None and rt.hand_id is not None
        rt.turn_timer = _cancelled(rt.turn_timer)
        summary = results.summary_of(hand)
        now = self.clock.now()
        # Every seat dealt in, if its player still holds it, with its stack at the end; those
        # leaving, kicked or busted are cashed out now, once, in the settlement's transaction
        # (and, if the table was stopped during the hand, every seat: the table closes with it).
        held = [replace(seat, stack=hand.stacks[es]) for es in range(len(setup.players))
                if (seat := rt.seat_in_hand(es)) is not None]
        gone = [seat for seat in held if seat.leaving or seat.kicked or seat.stack == 0]
        stay = [seat for seat in held if not (seat.leaving or seat.kicked or seat.stack == 0)]
        closing = table.closing and table.tournament is None
        transfers = hand_transfers(hand, hand_id=rt.hand_id,
                                   account=lambda es: seat_account(table.id, setup.players[es][1]))
        _check_settlement(hand, transfers, setup=setup, table_id=table.id)
        record = rt.fair
        if record is not None and rt.reveal is None:  # read with the deal's player seeds, if it was dealt here
            rt.reveal = self.fair.held_reveal_mode(table) or await self.fair.reveal_mode(table.id)
        reveal = record is not None and rt.reveal == "hand"
        fair = record if reveal or record is None else record.hidden()
        async with self.store.atomic() as tx:
            await tx.finish_hand(hand_id=rt.hand_id, hand_file=json.dumps(hand_file_of(hand, fair=fair).to_dict()),
                                 summary=summary, now=now)
            if reveal:
                await self.fair.mark_revealed(tx, table_id=table.id, hand_no=setup.hand_no)
            await wallets.post(tx, transfers, now=now)
            if table.tournament is None:  # the stats are of cash hands: tournament chips are not money
                await record_hand(tx, hand=hand, hand_id=rt.hand_id, community=table.community,
                                  players=setup.players, now=now)
            for seat in gone:
                await wallets.cash_out(tx, table_id=table.id, community=table.community, user=seat.user,
                                  amount=seat.stack, kind="kick" if seat.kicked else "cash-out", now=now)
                await tx.remove_seat(table.id, seat.seat_no)
                del table.seats[seat.seat_no]
            for seat in stay:
                await tx.save_seat(table.id, seat)
                table.seats[seat.seat_no] = seat
            after = await self.hooks.settled(rt, tx, setup=setup, stacks=hand.stacks, now=now)
            if table.running and len(table.ready_seats()) >= 2 and not closing:
                table.next_hand_at = now + self.settings.next_hand_delay
            await tx.save_table(table)
            revealed = await self._close_table(tx, rt) if closing else []
            # The next hand's seed, committed now and shown on this result's board, if a next hand is coming
            # (otherwise at the next deal): no commitment is published for a hand never dealt. Last: on
            # PostgreSQL its round trip takes every statement held back before it, none is left for the commit.
            committed = await self.fair.commit(tx, table_id=table.id, hand_no=setup.hand_no + 1) \
                if table.next_hand_at is not None else None
        rt.deadline = None
        # Shown on the final board (published next), the deal armed below after the table's pause.
        rt.committed = committed.hand_no if committed is not None else None
        rt.commitment = committed.commitment if committed is not None else ""
        if committed is not None:  # stored now: the next deal need not read it back
            self.fair.stored(table_id=table.id, committed=committed)
        for seat in gone:
            if seat.stack:
                await self._say(rt, "line.kicked_with" if seat.kicked else "line.cashes_out", name=seat.name,
                                chips=render.chips(seat.stack, rt.tr))
            else:
                await self._say(rt, "line.busted", name=seat.name)
        if after is not None:
            await after()
        if closing:
            await self._closed(rt, revealed)
            return
        if table.next_hand_at is not None:
            self._arm_next_hand(rt, table.next_hand_at)
        elif table.running:
            await self._say(rt, "line.waiting_join")

    async def _close_table(self, tx: Tx, rt: Runtime) -> list[Revealed]:
        """Close the table in ``tx`` (a stop between hands, or the settlement of the hand a stop came
        during): every seat cashed out to its wallet, and every finished hand's seed not yet revealed
        (a table with ``config reveal=stop``) revealed. Then :meth:`_closed`, once committed."""
        table = rt.table
        now = self.clock.now()
        for seat in table.seats.values():
            await wallets.cash_out(tx, table_id=table.id, community=table.community, user=seat.user, amount=seat.stack,
                              kind="closed", now=now)
            await tx.remove_seat(table.id, seat.seat_no)
        await tx.close_table(table.id)
        return await self.fair.reveal_all(tx, table_id=table.id)  # finished hands only

    async def _closed(self, rt: Runtime, revealed: Sequence[Revealed]) -> None:
        """The close committed: the table leaves memory (its timers stopped) and says so."""
        cancel_timers(rt)
        rt.closed = True
        self.tables.pop(f"{rt.table.platform}:{rt.table.channel}", None)
        await self._say(rt, "line.closed")
        if revealed:
            await self._say(rt, "fair.revealed_all", seeds=revealed_seeds(list(revealed)))

    async def _maybe_schedule_next(self, rt: Runtime) -> None:
        table = rt.table
        idle = rt.hand is None or rt.hand.is_over
        if table.running and idle and table.next_hand_at is None and len(table.ready_seats()) >= 2:
            await self._announce_next(rt)

    async def _announce_next(self, rt: Runtime) -> None:
        """Show the next hand's commitment on the board (its seed drawn and stored first, or the one stored
        before a restart) and deal it after the table's usual pause, never at once: the players' seeds are
        those in force at the deal, so each deck is fixed, and shown, while they can still change them
        (FAIRNESS.md). Every path to a deal goes through here or through the settlement that arms the next."""
        table = rt.table
        await self._read_reveal(rt)
        committed = await self.fair.commit_next(table)  # stored before it is shown
        table.next_hand_at = self.clock.now() + self.settings.next_hand_delay
        async with self.store.atomic() as tx:
            await tx.save_table(table)
        rt.committed, rt.commitment = committed.hand_no, committed.commitment
        await self._publish(rt)
        self._arm_next_hand(rt, table.next_hand_at)

    async def _read_reveal(self, rt: Runtime) -> str:
        """The table's reveal mode ('hand' or 'stop'), read once (see :attr:`Runtime.reveal`)."""
        if rt.reveal is None:
            rt.reveal = self.fair.held_reveal_mode(rt.table) or await self.fair.reveal_mode(rt.table.id)
        return rt.reveal

    # ------------------------------------------------------------------ timers

    def _arm_turn(self, rt: Runtime) -> None:
        hand = rt.hand
        if hand is None or hand.actor is None:
            rt.turn_timer = _cancelled(rt.turn_timer)
            return
        seat = rt.seat_in_hand(hand.actor)
        token = rt.turn
        now = self.clock.now()
        if seat is not None and seat.is_bot:
            rt.turn_timer = _cancelled(rt.turn_timer)
            rt.turn_timer = self._call_at(rt, now + self.settings.bot_delay, lambda: self._bot_turn(rt, token))
        elif seat is None or seat.leaving or (seat.sitting_out and rt.table.tournament is not None):
            rt.turn_timer = _cancelled(rt.turn_timer)
            rt.turn_timer = self._call_at(rt, now, lambda: self._timeout(rt, token, leaving=True))
        else:
            when = rt.deadline if rt.deadline is not None else now + rt.table.timer
            armed = rt.turn_timer
            if isinstance(armed, _TurnTimer) and armed.live and armed.due <= when:
                armed.when, armed.token = when, token  # it waits on for `when` once its clock timer fires
                return
            _cancelled(armed)
            rt.turn_timer = self._arm_deadline(rt, _TurnTimer(when=when, token=token))

    def _arm_deadline(self, rt: Runtime, timer: _TurnTimer) -> _TurnTimer:
        """Set ``timer``'s clock timer for its deadline: then the player to act times out (rule 5),
        unless the deadline moved on meanwhile, and then it is set again for the new one."""

        async def due() -> None:
            timer.live = False  # from here on a new turn arms a timer of its own
            if timer.when > self.clock.now():  # actions moved the deadline: wait on, unless cancelled
                if rt.turn_timer is timer:
                    self._arm_deadline(rt, timer)
                return
            await self._timeout(rt, timer.token, leaving=False)

        timer.due, timer.live = timer.when, True
        timer.handle = self._call_at(rt, timer.when, due)
        return timer

    def _call_at(self, rt: Runtime, when: float, callback: Callable[[], Awaitable[None]]) -> TimerHandle:
        """A timer of ``rt`` whose callback counts as work in flight, does nothing once a stop has
        begun, and (cluster mode) writes only while this process holds the table."""

        async def fire() -> None:
            if self.stopping:
                return
            with self.work.track(), self._fenced(rt):
                try:
                    await callback()
                except LeaseLost:
                    self._lost(rt)

        return self.clock.call_at(when, fire)

    async def _bot_turn(self, rt: Runtime, token: str | None) -> None:
        from bot.table.housebot import choose_action

        async with rt.lock:
            if self.stopping or rt.closed or rt.hand is None or rt.turn != token or rt.hand.is_over:
                return
            await self._apply(rt, choose_action(rt.hand, rng=self.bot_rng), by_timeout=False)

    async def _timeout(self, rt: Runtime, token: str | None, *, leaving: bool) -> None:
        async with rt.lock:
            if self.stopping or rt.closed or rt.hand is None or rt.turn != token or rt.hand.is_over:
                return
            await self._apply(rt, rt.hand.default_action(), by_timeout=not leaving)

    def _arm_next_hand(self, rt: Runtime, when: float) -> None:
        rt.next_timer = _cancelled(rt.next_timer)

        async def deal() -> None:
            async with rt.lock:
                if self.stopping or rt.closed or (rt.hand is not None and not rt.hand.is_over) \
                        or not rt.table.running:
                    return
                await self._start_hand(rt)

        rt.next_timer = self._call_at(rt, when, deal)

    def _fenced(self, rt: Runtime) -> AbstractContextManager[None]:
        return self.cluster.fenced(rt) if self.cluster is not None else contextlib.nullcontext()

    def _lost(self, rt: Runtime) -> None:
        if self.cluster is not None:
            self.cluster.lost(rt)

    # ------------------------------------------------------------------ output

    async def _publish(self, rt: Runtime, *, new: bool = False) -> None:
        try:
            await self._publish_board(rt, new=new)
        except LeaseLost:
            raise
        except Exception:  # the next change publishes again; the table goes on
            log.exception("table %s: publishing the board failed", rt.table.id)

    async def _publish_board(self, rt: Runtime, *, new: bool) -> None:
        """Show the board. An edit of a hand in progress goes as a drawing to a messenger that holds
        boards back (the outbox shows a table's board every second or so, the table may change many
        times meanwhile): it is drawn once, when it is sent, from the table as it is then. A new
        message and a final board are drawn now."""
        messenger, ref, hand = self.messenger, None if new else rt.table.board_ref, rt.hand
        if ref is not None and deferring(messenger) and not (hand is not None and hand.is_over):
            ref = await messenger.defer_board(table=rt.address, draw=lambda: self._board_view(rt), ref=ref)
        else:
            ref = await messenger.publish_board(table=rt.address, board=self._board_view(rt), ref=ref)
        if ref != rt.table.board_ref and not rt.closed:
            rt.table.board_ref = ref
            async with self.store.atomic() as tx:
                await tx.save_table(rt.table)

    def _board_view(self, rt: Runtime) -> BoardView:
        """The board as the table stands now: a tournament's lobby, or the table and its hand."""
        lobby = self.hooks.lobby(rt)
        if lobby is not None:
            return lobby
        hand = rt.hand
        seconds = None
        if hand is not None and rt.deadline is not None and hand.actor is not None:
            seconds = max(0, round(rt.deadline - self.clock.now()))
        text, buttons = render.board(rt.table, hand, names=rt.names, turn=rt.turn, seconds_left=seconds,
                                     tr=rt.tr)
        return BoardView(text=text, buttons=buttons, hand_no=rt.table.hand_no,
                         final=hand is not None and hand.is_over, image=self._board_image(rt), deck=_deck(rt))

    def _board_image(self, rt: Runtime) -> bytes | None:
        """The board as a PNG when the table shows images (never on the console), else None;
        after a showdown, the showdown: every shown hand with its high and low, and who won.

        :func:`~bot.text.images.board_png` is memoised on the board's layout: an unchanged board
        (a clock tick, a 'board' command) costs a dictionary lookup. A drawing failure
        falls back to the text board.
        """
        if rt.table.view != "image" or rt.table.platform == "console":
            return None
        tr = rt.tr
        try:
            hand = rt.hand
            if hand is not None and hand.is_over and len(hand.live_seats) > 1:  # the showdown: hands and winners
                return images.showdown_png(hand, names=rt.names, tr=tr)
            return images.board_png(rt.table, hand, names=rt.names, tr=tr)
        except Exception:
            log.exception("table %s: drawing the board failed; showing it as text", rt.table.id)
            return None

    def _private_image(self, rt: Runtime, es: int, tr: Translator) -> bytes | None:
        """The player's cards as a PNG (best high and low marked) when the table shows images."""
        if rt.table.view != "image" or rt.table.platform == "console" or rt.hand is None:
            return None
        try:
            return images.private_png(rt.hand, es, tr=tr)
        except Exception:
            log.exception("table %s: drawing the cards of seat %d failed; sending them as text", rt.table.id, es)
            return None

    async def _say(self, rt: Runtime, key: str, /, **fields: object) -> None:
        """A public line in the table's language: a catalog key, its fields (a field may be a
        function of the translator, for words such as '5 chips')."""
        await self._say_text(rt, rt.tr(key, **fields))

    async def _say_text(self, rt: Runtime, text: str) -> None:
        try:
            await self.messenger.announce(table=rt.address, text=text)
        except Exception:
            log.exception("table %s: announcing failed", rt.table.id)


def _deck(rt: Runtime) -> str:
    """The board's line with the commitment of the hand being played, or else of the next hand once it is
    committed (shown before its deal): short, 'Deck #4 2fe4…d4db · verify after the hand'; '' if none."""
    hand = rt.hand
    if hand is not None and not hand.is_over and rt.fair is not None:
        no, commitment = rt.table.hand_no, rt.fair.commitment
    elif rt.committed is not None and rt.committed == rt.table.hand_no + 1 and rt.commitment:
        no, commitment = rt.committed, rt.commitment
    else:
        return ""
    return deck_line(rt.tr, no=no, commitment=commitment, at_stop=rt.reveal == "stop")


def _dealt_to(events: Sequence[Event], hand: Hand) -> list[int]:
    """The seats that got a card among ``events`` (every live seat for a community card), in seat order."""
    dealt: set[int] = set()
    for e in events:  # one pass (most changes are one action: no card at all)
        if isinstance(e, CardDealt):
            dealt.add(e.seat)
        elif isinstance(e, CommunityCardDealt):
            dealt.update(hand.live_seats)
    return sorted(dealt)


class _TurnTimer:
    """The timer of a player's turn (rule 5), set lazily: an action moves the deadline (and the turn it is
    for) here without touching the clock; the clock timer, set for an earlier deadline, finds the new one
    when it fires and is set again for it. A timeout happens exactly when one timer per action would have
    made it happen: at the last deadline, for the turn armed last, and never once cancelled."""

    __slots__ = ("due", "handle", "live", "token", "when")

    def __init__(self, *, when: float, token: str | None) -> None:
        self.when = when
        """The deadline: the player to act times out then."""
        self.token = token
        """The turn the deadline is for (see :attr:`Runtime.turn`)."""
        self.due = when
        """When the clock timer fires (never after :attr:`when`)."""
        self.live = False
        """The clock timer is set and has not fired: a later deadline needs no new one."""
        self.handle: TimerHandle | None = None

    def cancel(self) -> None:
        self.live = False
        if self.handle is not None:
            self.handle.cancel()


def cancel_timers(rt: Runtime) -> None:
    rt.turn_timer = _cancelled(rt.turn_timer)
    rt.next_timer = _cancelled(rt.next_timer)


def _cancelled(handle: TimerHandle | None) -> TimerHandle | None:
    """Cancel ``handle`` (if any); returns None, to clear the field that held it."""
    if handle is not None:
        handle.cancel()
    return None


def _check_settlement(hand: Hand, transfers: list[Transfer], *, setup: HandSetup, table_id: int) -> None:
    """The hand's movements must take each seat from its start stack to its end stack and leave
    the pot empty; a mismatch is a bug (logged; the audit names the hand and the account)."""
    net = net_by_account(transfers)
    for es, (_, user, _, start) in enumerate(setup.players):
        account = seat_account(table_id, user)
        if start + net.get(account, 0) != hand.stacks[es]:
            log.error("table %s hand #%s: %s moved %+d chips but its stack went %d -> %d", table_id,
                      setup.hand_no, account, net.get(account, 0), start, hand.stacks[es])
    left = sum(v for k, v in net.items() if k.startswith("pot:"))
    if left:
        log.error("table %s hand #%s: %d chips left in the pot", table_id, setup.hand_no, left)
