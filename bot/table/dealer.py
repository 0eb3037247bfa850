"""The life of a hand at a table: deal, take decisions, settle, restore, and the timers between.

:class:`Dealer` is held by the application (bot/app.py) and lent to the seating and table commands and
to the features; it shows what happens through :class:`~bot.table.output.TableOutput`, and lets the
features take part through :class:`~bot.table.runtime.TableHooks`. Every decision is committed
before it is played and shown.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace

from bot.chips import wallets
from bot.chips.ledger import check_hand_transfers, hand_transfers, seat_account
from bot.core.config import Settings
from bot.core.errors import Refusal
from bot.core.lifecycle import Work
from bot.core.model import HandSetup, Player, Table
from bot.core.ports import Clock, TimerHandle
from bot.platform import updates
from bot.store import Store, Tx
from bot.store.fence import LeaseLost, TableMoved
from bot.table import delivery, rebuys, timebank
from bot.table.fairness import Fairness, Revealed, revealed_seeds, short_hex
from bot.table.housebot import choose_action
from bot.table.output import TableOutput
from bot.table.runtime import Runtime, TableGuard, TableHooks, Tables
from bot.table.timers import TurnTimer, cancel_timers, cancelled
from bot.text import render, results
from engine import Action, Deck, DeckDealer, FairRecord, Game, Hand
from engine.cards import CARD_TEXTS, Card
from engine.equity import Equity, all_in_equity, ran_out
from engine.events import CardDealt, Event
from engine.handfile import hand_file_of

log = logging.getLogger(__name__)


class Dealer:
    """Hands and timers of the tables held here: deal, take decisions, settle, restore; a collaborator
    of the application (bot/app.py), of the seating and table commands and of the features."""

    def __init__(self, *, store: Store, clock: Clock, settings: Settings, fair: Fairness, output: TableOutput,
                 deliveries: delivery.Deliveries, tables: Tables, hooks: Sequence[TableHooks], guard: TableGuard,
                 work: Work, rng: random.Random) -> None:
        self.store, self.clock, self.settings = store, clock, settings
        self.fair = fair
        """Server seeds, player seeds and reveals (provably fair decks)."""
        self.output = output
        self.deliveries = deliveries
        self.tables = tables
        self.hooks = hooks
        """The features' hooks, run in this order (before a deal, at the settlement, for the board)."""
        self.guard = guard
        self.work = work
        """Commands and timer callbacks in flight (a stop waits for them)."""
        self.rng = rng
        """The house bots' decisions."""
        self.stopping = False
        """Set by a stop: no timer acts any more."""
        self._after_close: dict[int, list[Callable[[], Awaitable[None]]]] = {}
        """What the hooks say once a table's close is committed (:meth:`close_table`, then :meth:`closed`)."""

    # ------------------------------------------------------------------ hands

    def build_hand(self, setup: HandSetup, *, cards: Sequence[Card] | None = None) -> Hand:
        """The hand ``setup`` deals (``cards``: its deck, when the caller holds it as cards already)."""
        deck = Deck.from_cards(cards if cards is not None else [Card.from_str(c) for c in setup.deck])
        players = setup.players
        return Hand(stakes=setup.stakes, names=[p.name for p in players], stacks=[p.stack for p in players],
                    dealer=DeckDealer(deck), game=setup.game)

    async def start_hand(self, rt: Runtime) -> None:
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
        rt.next_timer = cancelled(rt.next_timer)
        table.running, table.next_hand_at = False, None
        try:
            async with self.store.atomic() as tx:
                await tx.save_table(table)
        except LeaseLost:
            raise
        except Exception:  # the table is told all the same; a restart finds it as it was before the deal
            log.exception("table %s: saving the table after the failed deal failed", table.id)
        await self.output.say(rt, "line.deal_failed", no=table.hand_no + 1)
        await self.output.publish(rt)

    async def _deal(self, rt: Runtime) -> None:
        table = rt.table
        rt.next_timer = cancelled(rt.next_timer)
        table.next_hand_at = None
        ready = table.ready_seats()
        if len(ready) < 2:
            async with self.store.atomic() as tx:
                await tx.save_table(table)
            await self.output.say(rt, "line.waiting")
            return
        hand_no = table.hand_no + 1
        if rt.committed != hand_no:  # its commitment not shown here yet: show it, deal after the pause
            await self.announce_next(rt)
            return
        for hook in self.hooks:  # a tournament sets the level's stakes
            await hook.before_deal(rt)
        players = [Player(s.seat_no, s.user, s.name, s.stack) for s in ready]
        now = self.clock.now()
        async with self.store.atomic() as tx:
            record = await self.fair.deal(tx, table=table, hand_no=hand_no,
                                          players=[(p.user, p.name) for p in players])
            deck = record.deck()
            setup = HandSetup(hand_no=hand_no, stakes=table.stakes, players=players,
                              deck=[CARD_TEXTS[c.index] for c in deck], game=table.game_of_hand(hand_no))
            hand = self.build_hand(setup, cards=deck)  # in the transaction: if it fails, nothing is stored
            hand_id = await tx.begin_hand(table_id=table.id, setup=setup, now=now, deadline=now + table.timer)
            await tx.save_table(replace(table, hand_no=setup.hand_no))
        # The new number with the new hand, at once: a board drawn meanwhile (see TableOutput.publish) shows
        # the last hand under its own number, never under the next one's.
        table.hand_no = setup.hand_no
        rt.hand, rt.hand_id, rt.setup, rt.seen, rt.fair = hand, hand_id, setup, 0, record
        rt.deadline = now + table.timer
        plain = table.game == Game.STUD8 and setup.game is Game.STUD8  # else the line names the game (G8)
        await self.output.say(rt, "line.hand_starts" if plain else "line.hand_starts_game", no=setup.hand_no,
                              names=", ".join(rt.names), game=lambda tr: results.game_name(tr, setup.game))
        await self._after_change(rt)

    async def apply(self, rt: Runtime, action: Action, *, by_timeout: bool) -> None:
        """Commit one decision, then play it, render it, and arm what comes next."""
        hand, table = rt.hand, rt.table
        assert hand is not None and rt.hand_id is not None and hand.actor is not None
        player = hand.actor
        seat = rt.seat_in_hand(player)
        now = self.clock.now()
        deadline = timebank.clock_now(rt, now) + table.timer  # a pause: the next turn's clock starts at resume
        seq, seat_no = len(hand.actions), rt.seat_no(player)
        timeouts = (seat.timeouts + 1 if by_timeout else 0) if seat is not None else 0
        used = timebank.spent(rt, seat, now)  # of the player's time bank, this turn
        bank = round(max(0.0, rt.clocks.bank(seat.user) - used), 3) if seat is not None and used > 0 else None
        # the platform update that brought it, unless an earlier effect of the same command marked it
        key = None if by_timeout else updates.pending()
        if key is not None or bank is not None or (seat is not None and timeouts != seat.timeouts):
            async with self.store.atomic() as tx:
                # the update's done mark commits with its action: a retry of it finds it done
                if key is not None and not await updates.mark_applied(tx, key):
                    raise Refusal("refuse.applied_already", code="applied_already")
                await tx.add_action(hand_id=rt.hand_id, seq=seq, action=action.value, seat_no=seat_no,
                                    by_timeout=by_timeout, now=now, deadline=deadline)
                if seat is not None and timeouts != seat.timeouts:
                    await tx.save_seat(table.id, replace(seat, timeouts=timeouts,
                                                         sitting_out=seat.sitting_out or timeouts >= 2))
                if seat is not None and bank is not None:  # the bank spent, with the action that ends the turn
                    await timebank.save_bank(tx, table.id, seat.user, bank)
            if key is not None:
                key.marked = True
            if seat is not None and bank is not None:
                rt.clocks.banks[seat.user] = bank
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
            await self.output.say(rt, "line.timed_out_sitting_out" if seat.sitting_out else "line.timed_out",
                                  name=seat.name)
        await self._after_change(rt)

    async def _after_change(self, rt: Runtime) -> None:
        hand = rt.hand
        assert hand is not None
        events = hand.events[rt.seen:]
        rt.seen = len(hand.events)
        equities = await _all_in_equity(hand) if hand.is_over else None
        try:
            lines = render.describe(events, hand, rt.names, rt.tr, equities)
        except Exception:  # a rendering bug must not stop the hand
            log.exception("table %s: describing %d events failed", rt.table.id, len(events))
            lines = []
        if hand.is_over and rt.fair is not None and rt.setup is not None:  # the seed with the result
            lines.append(await self._seed_line(rt, rt.fair, hand_no=rt.setup.hand_no))
        if lines:
            await self.output.say_text(rt, "\n".join(lines))
        if (lines or hand.is_over) and rt.hand_id is not None:
            self.deliveries.track(table=rt.address, hand_id=rt.hand_id, events=rt.seen, final=hand.is_over)
        dealt = _dealt_to(events, hand)
        if not hand.is_over:  # the board first, with this change's lines (one flush), then the cards (issue 24)
            self.arm_turn(rt)
            await self.output.publish(rt, urgent=bool(dealt))  # a deal's board at once: its cards follow
            for player in dealt:
                await self.output.send_cards(rt, player)
            return
        for player in dealt:
            await self.output.send_cards(rt, player)
        await self._finish_hand(rt)
        await self.output.publish(rt)

    async def _seed_line(self, rt: Runtime, record: FairRecord, *, hand_no: int) -> str:
        """The last line of a hand's result: its server seed, short (``verify N`` gives it whole), or
        that it is revealed when the table stops (``config reveal=stop``)."""
        if await self._read_reveal(rt) == "hand" and record.server_seed is not None:
            return rt.tr("fair.result_seed", seed=short_hex(record.server_seed.hex()), no=hand_no)
        return rt.tr("fair.result_seed_at_stop", no=hand_no)

    async def _announce_again(self, rt: Runtime, past: delivery.Unannounced) -> None:
        """The last lines of a finished hand that a crash kept from the table."""
        hand = self.build_hand(past.setup)
        for action in past.actions:
            hand.act(Action(action))
        equities = await _all_in_equity(hand)
        try:
            lines = render.describe(hand.events[past.events:], hand, [p.name for p in past.setup.players], rt.tr,
                                    equities)
        except Exception:
            log.exception("table %s: describing hand %s again failed", rt.table.id, past.hand_id)
            lines = []
        if lines:
            await self.output.say_text(rt, "\n".join([rt.tr("line.restored"), *lines]))
        self.deliveries.track(table=rt.address, hand_id=past.hand_id, events=len(hand.events), final=True)

    async def _finish_hand(self, rt: Runtime) -> None:
        hand, table, setup = rt.hand, rt.table, rt.setup
        assert hand is not None and setup is not None and rt.hand_id is not None
        rt.turn_timer = cancelled(rt.turn_timer)
        summary = results.summary_of(hand)
        now = self.clock.now()
        # Every seat dealt in, if its player still holds it, with its stack at the end; those
        # leaving, kicked or busted are cashed out now, once, in the settlement's transaction
        # (and, if the table was stopped during the hand, every seat: the table closes with it).
        held = [replace(seat, stack=hand.stacks[player]) for player in range(len(setup.players))
                if (seat := rt.seat_in_hand(player)) is not None]
        closing = table.closing and table.tournament is None
        await rebuys.pending(self.store, rt)  # read once a table: the rebuys its settlement applies
        transfers = hand_transfers(hand, hand_id=rt.hand_id,
                                   account=lambda player: seat_account(table.id, setup.players[player].user))
        check_hand_transfers(hand, transfers, setup=setup, table_id=table.id)
        record = rt.fair
        if record is not None:  # read with the deal's player seeds, if it was dealt here
            await self._read_reveal(rt)
        reveal = record is not None and rt.reveal == "hand"
        fair = record if reveal or record is None else record.hidden()
        async with self.store.atomic() as tx:
            await tx.finish_hand(hand_id=rt.hand_id, hand_file=json.dumps(hand_file_of(hand, fair=fair).to_dict()),
                                 summary=summary, now=now)
            if reveal:
                await self.fair.mark_revealed(tx, table_id=table.id, hand_no=setup.hand_no)
            await wallets.post(tx, transfers, now=now)
            held, rebought = await rebuys.apply_pending(tx, rt, held=held, now=now, drop=closing)
            gone = [seat for seat in held if seat.leaving or seat.kicked or seat.stack == 0]
            stay = [seat for seat in held if not (seat.leaving or seat.kicked or seat.stack == 0)]
            for seat in gone:
                await wallets.leave_seat(tx, table_id=table.id, community=table.community, seat_no=seat.seat_no,
                                         user=seat.user, amount=seat.stack, kind="kick" if seat.kicked else "cash-out",
                                         now=now)
                del table.seats[seat.seat_no]
            for seat in stay:
                await tx.save_seat(table.id, seat)
                table.seats[seat.seat_no] = seat
            afters = [after for hook in self.hooks  # the stats rows; a tournament's places and prizes
                      if (after := await hook.settled(rt, tx, setup=setup, stacks=hand.stacks, now=now)) is not None]
            if table.running and len(table.ready_seats()) >= 2 and not closing:
                table.next_hand_at = timebank.clock_now(rt, now) + self.settings.next_hand_delay
            await tx.save_table(table)
            revealed = await self.close_table(tx, rt) if closing else []
            # The next hand's seed, committed now and shown on this result's board, if a next hand is coming
            # (otherwise at the next deal): no commitment is published for a hand never dealt. Last: on
            # PostgreSQL its round trip takes every statement held back before it, none is left for the commit.
            committed = await self.fair.commit(tx, table_id=table.id, hand_no=setup.hand_no + 1) \
                if table.next_hand_at is not None else None
        rt.deadline = None
        rebuys.settled(rt)
        # Shown on the final board (published next), the deal armed below after the table's pause.
        rt.committed = committed.hand_no if committed is not None else None
        rt.commitment = committed.commitment if committed is not None else ""
        if committed is not None:  # stored now: the next deal need not read it back
            self.fair.stored(table_id=table.id, committed=committed)
        for seat in gone:
            if seat.stack:
                await self.output.say(rt, "line.kicked_with" if seat.kicked else "line.cashes_out", name=seat.name,
                                      chips=render.chips(seat.stack, rt.tr))
            else:
                await self.output.say(rt, "line.busted", name=seat.name)
        for done in rebought:
            if done.chips:
                await self.output.say(rt, "rebuy.line_applied", name=done.name, chips=render.chips(done.chips, rt.tr))
            else:
                await self.output.say(rt, "rebuy.line_dropped", name=done.name)
        for after in afters:
            await after()
        if closing:
            await self.closed(rt, revealed)
            return
        if table.next_hand_at is not None:
            self._arm_next_hand(rt, table.next_hand_at)
        elif table.running:
            await self.output.say(rt, "line.waiting_join")

    async def close_table(self, tx: Tx, rt: Runtime) -> list[Revealed]:
        """Close the table in ``tx`` (a stop between hands, or the settlement of the hand a stop came
        during): every seat cashed out to its wallet, and every finished hand's seed not yet revealed
        (a table with ``config reveal=stop``) revealed. Then :meth:`closed`, once committed."""
        table = rt.table
        now = self.clock.now()
        for seat in table.seats.values():
            await wallets.leave_seat(tx, table_id=table.id, community=table.community, seat_no=seat.seat_no,
                                     user=seat.user, amount=seat.stack, kind="closed", now=now)
        self._after_close[table.id] = [after for hook in self.hooks  # a cash table's settle-up
                                       if (after := await hook.closing(rt, tx, now=now)) is not None]
        await tx.close_table(table.id)
        return await self.fair.reveal_all(tx, table_id=table.id)  # finished hands only

    async def closed(self, rt: Runtime, revealed: Sequence[Revealed]) -> None:
        """The close committed: the table leaves memory (its timers stopped) and says so."""
        cancel_timers(rt)
        rt.closed = True
        self.tables.drop(rt)
        await self.output.say(rt, "line.closed")
        if revealed:
            await self.output.say(rt, "fair.revealed_all", seeds=revealed_seeds(list(revealed)))
        for after in self._after_close.pop(rt.table.id, []):
            await after()

    async def schedule_next(self, rt: Runtime) -> None:
        table = rt.table
        if table.running and not rt.playing and table.next_hand_at is None and len(table.ready_seats()) >= 2:
            await self.announce_next(rt)

    async def announce_next(self, rt: Runtime) -> None:
        """Show the next hand's commitment on the board (its seed drawn and stored first, or the one stored
        before a restart) and deal it after the table's usual pause, never at once: the players' seeds are
        those in force at the deal, so each deck is fixed, and shown, while they can still change them
        (FAIRNESS.md). Every path to a deal goes through here or through the settlement that arms the next."""
        table = rt.table
        await self._read_reveal(rt)
        committed = await self.fair.commit_next(table)  # stored before it is shown
        table.next_hand_at = timebank.clock_now(rt, self.clock.now()) + self.settings.next_hand_delay
        async with self.store.atomic() as tx:
            await tx.save_table(table)
        rt.committed, rt.commitment = committed.hand_no, committed.commitment
        await self.output.publish(rt)
        self._arm_next_hand(rt, table.next_hand_at)

    async def _read_reveal(self, rt: Runtime) -> str:
        """The table's reveal mode ('hand' or 'stop'), read once (see :attr:`Runtime.reveal`)."""
        if rt.reveal is None:
            rt.reveal = self.fair.held_reveal_mode(rt.table) or await self.fair.reveal_mode(rt.table.id)
        return rt.reveal

    # ------------------------------------------------------------------ restore

    async def adopt(self, table: Table) -> None:
        """Hold an open table here: restore it, its hand in progress and its timers."""
        for hook in self.hooks:
            hook.adopted(table)
        rt = self.tables.hold(table)
        async with rt.lock:
            await self.restore(rt)

    async def restore(self, rt: Runtime) -> None:
        """The table as a crash or a stop left it: what it had not said yet, its hand in progress
        (the deck again from its fair record), and its timers (none while it is paused)."""
        rt.clocks = await timebank.load(self.store, rt.table.id, default=rt.clocks)
        for past in await delivery.unannounced_finished(self.store, rt.table.id):
            await self._announce_again(rt, past)
        playing = await self.store.playing_hand(rt.table.id)
        if playing is not None:
            setup = playing.setup
            record = await self.fair.record(table=rt.table, hand_no=setup.hand_no)
            if record is not None:  # the deck again from the committed seed and the seeds of the deal
                deck = [str(c) for c in record.deck()]
                if deck != setup.deck:
                    log.error("table %s hand #%s: the stored deck is not the fair record's", rt.table.id,
                              setup.hand_no)
                setup = replace(setup, deck=deck)
            rt.fair = record
            hand = self.build_hand(setup)
            for action in playing.actions:
                hand.act(Action(action))
            rt.hand, rt.hand_id, rt.setup = hand, playing.id, setup
            await self._read_reveal(rt)  # the board's line with the commitment says when it is revealed
            announced = await delivery.announced_events(self.store, playing.id)
            rt.seen = len(hand.events) if announced is None else min(announced, len(hand.events))
            rt.deadline = playing.deadline
            log.info("table %s: restored hand #%s after %d actions", rt.table.id, setup.hand_no, len(playing.actions))
            if rt.seen < len(hand.events):  # what a crash kept from the table: say it now, then go on
                await self.output.say(rt, "line.restored")
                await self._after_change(rt)
            elif hand.is_over:
                await self._finish_hand(rt)
            else:
                self.arm_turn(rt)
            await self.output.publish(rt)
        elif rt.table.closing:  # stopped during a hand that is over: close as its settlement would have
            async with self.store.atomic() as tx:
                revealed = await self.close_table(tx, rt)
            await self.closed(rt, revealed)
        elif rt.table.running and rt.table.next_hand_at is not None:
            # The next hand's stored commitment shown again (a crash may have come before it was shown at
            # all), and its deal after the table's pause from now.
            await self.announce_next(rt)

    def cancel_timers(self) -> None:
        """A stop: every timer of every table held here cancelled (one table's: :func:`cancel_timers`)."""
        for rt in self.tables.values():
            cancel_timers(rt)

    # ------------------------------------------------------------------ timers

    def arm_turn(self, rt: Runtime) -> None:
        hand = rt.hand
        if hand is None or hand.actor is None:
            rt.turn_timer = cancelled(rt.turn_timer)
            return
        seat = rt.seat_in_hand(hand.actor)
        token = rt.turn
        now = self.clock.now()
        leaving = seat is None or seat.leaving or (seat.sitting_out and rt.table.tournament is not None)
        if rt.clocks.paused and not leaving:  # every clock stands still; 'resume' arms the turn again
            rt.turn_timer = cancelled(rt.turn_timer)
            return
        if seat is not None and seat.is_bot:
            rt.turn_timer = cancelled(rt.turn_timer)
            rt.turn_timer = self._call_at(rt, now + self.settings.bot_delay, lambda: self._bot_turn(rt, token))
        elif leaving:
            rt.turn_timer = cancelled(rt.turn_timer)
            rt.turn_timer = self._call_at(rt, now, lambda: self._timeout(rt, token, leaving=True))
        else:
            when = rt.deadline if rt.deadline is not None else now + rt.table.timer
            armed = rt.turn_timer
            if isinstance(armed, TurnTimer) and armed.live and armed.due <= when:
                armed.when, armed.token = when, token  # it waits on for `when` once its clock timer fires
                return
            cancelled(armed)
            rt.turn_timer = self._arm_deadline(rt, TurnTimer(when=when, token=token))

    def _arm_deadline(self, rt: Runtime, timer: TurnTimer) -> TurnTimer:
        """Set ``timer``'s clock timer for its deadline: then the player to act uses their time bank, or
        times out (rule 5), unless the deadline moved on meanwhile, and then it is set again for the new one."""

        async def due() -> None:
            timer.live = False  # from here on a new turn arms a timer of its own
            if timer.when > self.clock.now():  # actions moved the deadline: wait on, unless cancelled
                if rt.turn_timer is timer:
                    self._arm_deadline(rt, timer)
                return
            await self._deadline_passed(rt, timer.token)

        timer.due, timer.live = timer.when, True
        timer.handle = self._call_at(rt, timer.when, due)
        return timer

    def _call_at(self, rt: Runtime, when: float, callback: Callable[[], Awaitable[None]]) -> TimerHandle:
        """A timer of ``rt`` whose callback counts as work in flight, does nothing once a stop has
        begun, and (cluster mode) writes only while this process holds the table."""

        async def fire() -> None:
            if self.stopping:
                return
            with self.work.track(), self.fenced(rt):
                try:
                    await callback()
                except LeaseLost:
                    self.lost(rt)

        return self.clock.call_at(when, fire)

    def _turn_gone(self, rt: Runtime, token: str | None) -> bool:
        """A turn timer fired for a turn that is not to be played any more (a stop, the table closed, the
        hand over, or the turn taken meanwhile: ``token`` is the turn it was armed for)."""
        return self.stopping or rt.closed or not rt.playing or rt.turn != token

    async def _deadline_passed(self, rt: Runtime, token: str | None) -> None:
        """The turn timer ran out: the player's time bank runs for what is left in it (said, and shown on
        the board), then they time out; with nothing left in it, at once."""
        async with rt.lock:
            if self._turn_gone(rt, token) or rt.clocks.paused:
                return
            assert rt.hand is not None and rt.hand.actor is not None
            seat = rt.seat_in_hand(rt.hand.actor)
            rest = timebank.left(rt, seat, self.clock.now())
            if seat is None or rest < 0.001:
                await self.apply(rt, rt.hand.default_action(), by_timeout=True)
                return
            rt.turn_timer = cancelled(rt.turn_timer)
            rt.turn_timer = self._call_at(rt, self.clock.now() + rest,
                                          lambda: self._timeout(rt, token, leaving=False))
            await self.output.say(rt, "timebank.line_running", name=seat.name, seconds=round(rest))
            await self.output.publish(rt)

    async def _bot_turn(self, rt: Runtime, token: str | None) -> None:
        async with rt.lock:
            if self._turn_gone(rt, token) or rt.clocks.paused:
                return
            assert rt.hand is not None
            await self.apply(rt, choose_action(rt.hand, rng=self.rng), by_timeout=False)

    async def _timeout(self, rt: Runtime, token: str | None, *, leaving: bool) -> None:
        async with rt.lock:
            if self._turn_gone(rt, token) or (rt.clocks.paused and not leaving):
                return
            assert rt.hand is not None
            await self.apply(rt, rt.hand.default_action(), by_timeout=not leaving)

    def _arm_next_hand(self, rt: Runtime, when: float) -> None:
        rt.next_timer = cancelled(rt.next_timer)

        async def deal() -> None:
            async with rt.lock:
                if self.stopping or rt.closed or rt.playing or not rt.table.running or rt.clocks.paused:
                    return
                await self.start_hand(rt)

        rt.next_timer = self._call_at(rt, when, deal)

    # ------------------------------------------------------------------ pause

    async def pause(self, rt: Runtime, *, by: str) -> None:
        """Every clock of the table stops (stored first): the turn's, the time bank's, the house bots', the
        next deal's. Actions typed meanwhile are still taken."""
        clocks = replace(rt.clocks, paused_by=by, paused_at=self.clock.now())
        async with self.store.atomic() as tx:
            await timebank.save_clocks(tx, rt.table.id, clocks)
        rt.clocks = clocks
        cancel_timers(rt)

    async def resume(self, rt: Runtime) -> None:
        """The clocks go on where they stood: the turn's deadline and the next deal move on by the pause
        (stored with it), and their timers are armed again."""
        clocks, table = rt.clocks, rt.table
        assert clocks.paused_at is not None
        shift = self.clock.now() - clocks.paused_at  # what each clock had left at the pause, it has again
        hand = rt.hand
        deadline = rt.deadline + shift if rt.playing and rt.deadline is not None else None
        next_at = table.next_hand_at + shift if table.next_hand_at is not None else None
        running = replace(clocks, paused_by=None, paused_at=None)
        async with self.store.atomic() as tx:
            await timebank.save_clocks(tx, table.id, running)
            if deadline is not None and hand is not None and rt.hand_id is not None:
                await timebank.move_deadline(tx, hand_id=rt.hand_id, actions=len(hand.actions), deadline=deadline)
            if next_at is not None:
                await tx.save_table(replace(table, next_hand_at=next_at))
        rt.clocks = running
        if deadline is not None:
            rt.deadline = deadline
        table.next_hand_at = next_at
        if rt.playing:
            self.arm_turn(rt)
        elif table.running and next_at is not None:
            self._arm_next_hand(rt, next_at)
        else:
            await self.schedule_next(rt)

    def fenced(self, rt: Runtime) -> AbstractContextManager[None]:
        """Writes for ``rt`` in the block commit only while this process holds it (cluster mode)."""
        return self.guard.fenced(rt)

    def lost(self, rt: Runtime) -> None:
        """A write for ``rt`` found it held by another process: dropped here."""
        self.guard.lost(rt)


def _dealt_to(events: Sequence[Event], hand: Hand) -> list[int]:
    """The seats dealt a down card among ``events`` (third and seventh street), in seat order: only then do
    their private cards change. An up card (and a community card) is on the board for everyone; 'cards'
    still shows a player all of theirs at any time. One private message a down card, not one a street:
    each is a call against the platform's per-token budget (issue 24)."""
    return sorted({e.seat for e in events if isinstance(e, CardDealt) and not e.face_up})


async def _all_in_equity(hand: Hand) -> dict[int, Equity] | None:
    """Each street's equities at an all-in (rule 13; :func:`engine.equity.all_in_equity`), counted off the event
    loop (up to half a second), or None: no all-in, or the count failed (the hand's lines go out without them)."""
    if not ran_out(hand):  # most hands: no thread for nothing
        return None
    try:
        return await asyncio.to_thread(all_in_equity, hand) or None
    except Exception:  # the equity is a courtesy: never let it stop a hand's settlement
        log.exception("counting the equity of an all-in failed")
        return None
