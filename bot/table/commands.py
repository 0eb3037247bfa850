"""The table commands: start, stop, config, cards, board, history, seed and the betting actions
(:class:`TableCommands`, routed here by the application's registry, the table's lock held)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal

from bot.core.config import Settings
from bot.core.errors import Refusal
from bot.core.i18n import Translator, family, language_of
from bot.core.limits import MAX_TIMER, MIN_TIMER, STAKE_RANGES, VIEWS
from bot.core.ports import Inbound, Reply
from bot.store import Store
from bot.table import games, rebuys, session
from bot.table.dealer import Dealer
from bot.table.fairness import Fairness
from bot.table.output import TableOutput
from bot.table.pause import TIMEBANK_OPTIONS, HostClocks
from bot.table.routes import Route
from bot.table.runtime import Runtime, require_owner, seated
from bot.table.timers import cancel_timers
from bot.text import render, results
from bot.text.grammar import ACTIONS, Command, command_word, usage_text
from engine import Action, Hand, IllegalActionError, Stakes, StakesError

DONE = Reply("")
"""An action taken: nothing to say to its player alone (the table is told)."""

_WHY = family("why", ("bring_in_no_fold", "bring_in_short", "bring_in_first", "bring_in_posted", "fold_free",
                      "check_facing", "nothing_to_call", "bet_complete", "bet_raise", "nothing_to_complete",
                      "raise_no_bet", "raise_complete", "call_all_in", "capped", "not_reopened", "nobody_to_call",
                      "double_short", "double_closed"))
_NOT_STAKES = (*TIMEBANK_OPTIONS, "mix_hands")
"""Whole-number options of 'config' that are not stakes (nor the timer)."""


class TableCommands:
    """The commands that play and configure a table (the seating ones are :class:`~bot.table.seating.Seating`'s)."""

    def __init__(self, *, dealer: Dealer, output: TableOutput, fair: Fairness, store: Store,
                 settings: Settings) -> None:
        self.dealer = dealer
        self.output = output
        self.fair = fair
        self.store = store
        self.settings = settings
        self.clocks = HostClocks(dealer=dealer, output=output, store=store)
        """'pause', 'resume' and the time bank's options of 'config'."""

    def routes(self) -> Mapping[str, Route]:
        routes = {"start": Route(at_table=self.start), "stop": Route(at_table=self.stop),
                  "config": Route(at_table=self.config), "cards": Route(at_table=self.cards),
                  "board": Route(at_table=self.board), "history": Route(at_table=self.recent),
                  "seed": Route(at_table=self.seed)}
        return routes | dict(self.clocks.routes()) | {name: Route(at_table=self.action) for name in ACTIONS}

    async def start(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        if rt.table.closing:  # stopped during this hand: a stop is final, as it always was
            raise Refusal("refuse.closing")
        if rt.playing:
            raise Refusal("refuse.playing")
        if rt.table.running:
            raise Refusal("refuse.running")
        if len(rt.table.ready_seats()) < 2:
            raise Refusal("refuse.two_needed")
        rt.table.running = True
        await self.dealer.announce_next(rt)  # the first hand's commitment on the board; its deal after the pause
        return Reply(self.output.tr(msg)("reply.dealing",
                                         seconds=render.seconds_text(self.settings.next_hand_delay)))

    async def stop(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """Close the table and give every stack back; during a hand, once it ends: it plays out as
        usual (a stop must not call off a hand its owner is losing), then its settlement closes the
        table. Said once: a second stop meanwhile changes nothing."""
        require_owner(rt, msg)
        table = rt.table
        tr = self.output.tr(msg)
        if rt.playing:
            if not table.closing:
                table.closing = True
                async with self.store.atomic() as tx:
                    await tx.save_table(table)
                await self.output.say(rt, "line.closes_after")
            return Reply(tr("reply.closes_after"), private=True)
        cancel_timers(rt)
        async with self.store.atomic() as tx:
            revealed = await self.dealer.close_table(tx, rt)
        await self.dealer.closed(rt, revealed)
        return Reply(tr("reply.closed"))

    async def config(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        require_owner(rt, msg)
        table = rt.table
        o = {k: v for k, v in command.options.items() if isinstance(v, int) and k not in _NOT_STAKES}
        for key, (low, high) in STAKE_RANGES.items():
            if key in o and not low <= o[key] <= high:
                raise Refusal("refuse.stake_range", key=key, low=low, high=high)
        view = command.options.get("view", table.view)
        if view not in VIEWS:
            raise Refusal("refuse.view", choices=" | ".join(VIEWS))
        lang = language_of(str(command.options.get("lang", table.lang))) or table.lang
        s = table.stakes
        wanted = {"ante": o.get("ante", s.ante), "bring_in": o.get("bring_in", s.bring_in),
                  "small": o.get("small", s.small_bet), "big": o.get("big", s.big_bet)}
        try:
            stakes = Stakes(ante=wanted["ante"], bring_in=wanted["bring_in"], small_bet=wanted["small"],
                            big_bet=wanted["big"])
        except StakesError:
            raise Refusal("refuse.stakes", ante=wanted["ante"], bring_in=wanted["bring_in"], small=wanted["small"],
                          big=wanted["big"]) from None
        timer = o.get("timer", table.timer)
        if not MIN_TIMER <= timer <= MAX_TIMER:
            raise Refusal("refuse.timer", low=MIN_TIMER, high=MAX_TIMER)
        clocks = await self.clocks.configure(rt, command.options)  # checked with the rest, before any change
        reveal = command.options.get("reveal")
        if isinstance(reveal, str) and reveal != await self.fair.reveal_mode(table.id):
            await self.fair.set_reveal_mode(table_id=table.id, reveal=reveal)
            rt.reveal = reveal
            await self.output.say(rt, "fair.line_reveal_stop" if reveal == "stop" else "fair.line_reveal_hand")
        approve = command.options.get("approve")
        if isinstance(approve, str) and (approve == "on") != await rebuys.approving(self.store, rt):
            async with self.store.atomic() as tx:
                await rebuys.set_approving(tx, rt, on=approve == "on")
            rt.approve = approve == "on"
            await self.output.say(rt, "approval.line_on" if rt.approve else "approval.line_off")
        money = await self._money(rt, command)
        changed_view, changed_lang = view != table.view, lang != table.lang
        setting = games.wanted_setting(table, command.options)
        changed_game = setting is not None and setting.game != table.game
        if setting is not None:  # G8: the hand in progress keeps its game; the next hand has the new one
            table.game, table.mix_hands, table.mix_start = setting.game, setting.mix_hands, setting.mix_start
        table.stakes, table.timer, table.view, table.lang = stakes, timer, str(view), lang
        async with self.store.atomic() as tx:
            await tx.save_table(table)
        playing = rt.playing
        if changed_lang:
            await self.output.say(rt, "line.lang")
        if set(o):
            await self.output.say(rt, "line.stakes_next" if playing else "line.stakes",
                                  stakes=lambda tr: render.stakes_text(table, tr))
        if setting is not None:
            await games.announce_setting(self.output, rt, changed_game=changed_game)
        if changed_view:
            await self.output.say(rt, "line.view_image" if table.view == "image" else "line.view_text")
        if clocks is not None:
            await self.clocks.save(rt, clocks)
        if money is not None:
            await self.output.say(rt, "session.line_money_off" if money.chip_value == 0 else "session.line_money",
                                  money=money.of(1))
        await self.output.publish(rt)
        return Reply(self.output.tr(msg)("reply.done"))

    async def _money(self, rt: Runtime, command: Command) -> session.Money | None:
        """'config chip_value=0.05 currency=EUR': what a chip is worth, shown in the ledger (never moved);
        stored at once (the config's other keys are checked before). None if the command does not set it."""
        value, currency = command.options.get("chip_value"), command.options.get("currency")
        if value is None and currency is None:
            return None
        known = await session.read_money(self.store.fetch, table_id=rt.table.id)
        chip_value = Decimal(0 if value == "off" else str(value)) if value is not None \
            else known.chip_value if known is not None else Decimal(0)
        if value is None and known is None:
            raise Refusal("session.refuse_currency_alone")
        money = session.Money(chip_value, str(currency) if currency is not None
                              else known.currency if known is not None else "")
        async with self.store.atomic() as tx:
            await session.save_money(tx, table_id=rt.table.id, money=money if chip_value else None)
        return money

    async def cards(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        hand, player = rt.hand, rt.engine_seat(msg.user)
        if hand is None or player is None:
            raise Refusal("refuse.no_cards")
        text = render.private_view(hand, player, hand_no=rt.table.hand_no, tr=self.output.tr(msg))
        return Reply(text, private=True)

    async def board(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        await self.output.publish(rt, new=True)
        return Reply("")

    async def recent(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """'history N': the table's last hands, a line each."""
        rows = await self.store.recent_hands(rt.table.id, int(command.args[0]))
        tr = self.output.tr(msg)
        if not rows:
            return Reply(tr("reply.no_history"), private=True)
        # G8: where the table deals several games (or the lines listed are of several), every line names its game
        several = rt.table.game != "stud8" or results.several_games(summary for _, summary in rows)
        lines = [f"#{no}: {results.history_line(tr, summary, name_game=several)}" for no, summary in rows]
        return Reply("\n".join(lines), private=True)

    async def seed(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        seat = seated(rt, msg)
        tr = self.output.tr(msg)
        if not command.args:
            seed = (await self.fair.player_seeds(rt.table.id)).get(seat.user, "")
            return Reply(tr("fair.seed_now", seed=json.dumps(seed, ensure_ascii=False)) if seed
                         else tr("fair.seed_none", usage=usage_text(tr, "seed")), private=True)
        seed = str(command.args[0])
        await self.fair.set_player_seed(table_id=rt.table.id, user=seat.user, seed=seed)
        return Reply(tr("fair.seed_set", seed=json.dumps(seed, ensure_ascii=False), no=rt.table.hand_no + 1),
                     private=True)

    async def action(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """A betting action ('call', 'raise' ...) of the player to act."""
        hand = rt.hand
        if hand is None or hand.is_over:
            raise Refusal("refuse.no_hand")
        player = rt.engine_seat(msg.user)
        if player is None:
            raise Refusal("refuse.not_in_hand")
        if command.turn is not None and command.turn != rt.turn:
            raise Refusal("refuse.turn_over", code="turn_over")
        if hand.actor != player:
            raise Refusal("refuse.not_your_turn", name=rt.names[hand.actor] if hand.actor is not None else "?")
        action = _sized(hand, command) if command.args else Action.from_str(command.name)
        try:
            hand.verify(action, seat=player)
        except IllegalActionError as exc:
            if exc.reason not in _WHY:
                raise
            why, amount = _WHY[exc.reason], exc.amount
            raise Refusal("refuse.illegal", action=lambda tr: command_word(tr, command.name),
                          reason=lambda tr: tr(why, amount=amount),
                          legal=lambda tr: _legal_text(hand, tr)) from None
        await self.dealer.apply(rt, action, by_timeout=False)
        return DONE


def _legal_text(hand: Hand, tr: Translator) -> str:
    return " · ".join(label.lower() for _, label in render.action_options(hand, tr))


def _sized(hand: Hand, command: Command) -> Action:
    """The action of 'bet 10', 'raise 15' (the total it raises to) or 'bet big' (G5): the small or the big
    one, whichever is legal at that size; one not legal at all is left to the engine to explain."""
    plain = Action.from_str(command.name)
    big = Action.BET_BIG if plain is Action.BET else Action.RAISE_BIG
    size = command.args[0]
    if size == "big":
        return big
    legal = hand.legal_actions()
    if plain not in legal:
        return plain
    for action in (plain, big):
        if action in legal and hand.round_bets[hand.actor or 0] + hand.amount_of(action) == size:
            return action
    raise Refusal("refuse.size", action=lambda tr: command_word(tr, plain.value), size=size,
                  legal=lambda tr: _legal_text(hand, tr))
