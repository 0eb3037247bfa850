"""The hand state machine: antes, the deal, bring-in, fixed-limit betting, the showdown.

One :class:`Hand` plays one hand of a stud game from the antes to the last chip:
Seven Card Stud Hi-Lo (rules 3-20 of RULES.md), Seven Card Stud or Razz (GAMES.md;
what differs between them is :mod:`engine.games`'s). It is pure and deterministic: the cards come
from the :class:`~engine.dealing.CardSource` passed in, the decisions from the
caller, one at a time, in the style of PokerKit's verify / can / act::

    >>> from engine import Hand, Stakes, ScriptedDealer, parse_cards
    >>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[50, 50],
    ...             dealer=ScriptedDealer(cards=[parse_cards("Ah 2h 3h 4h 5h 6h 7h"),
    ...                                          parse_cards("Kc Kd 2c Ks Qs Js 9s")]))
    >>> hand.actor_name, [a.value for a in hand.legal_actions()]
    ('bob', ['bring-in', 'complete'])
    >>> hand.can_fold()
    False
    >>> hand.act("bring-in"); hand.act("fold")
    >>> hand.is_over, hand.stacks
    (True, [49, 51])

Every change appends an event to :attr:`Hand.events`; :meth:`Hand.to_hand_file`
writes the hand file of HAND_FORMAT.md and :meth:`Hand.result` the replay result.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.betting import CAP, actors_count, chips_for, counts_as_full, is_capped, legal_now
from engine.cards import Card
from engine.dealing import CardSource
from engine.errors import EngineError, HandOverError, IllegalActionError, NotYourTurnError
from engine.evaluate import high_value_of_key, low_value_of_key
from engine.events import (
    AGGRESSIVE,
    Action,
    ActionTaken,
    AntePosted,
    BettingBegan,
    CardDealt,
    CommunityCardDealt,
    Event,
    HandEnded,
    StreetBegan,
    UncalledReturned,
)
from engine.games import RULES_OF, Game, GameRules, Scoring
from engine.lowball import razz_value_of_key
from engine.pots import PotResult
from engine.refusals import why_not
from engine.showdown import Settlement, settle_showdown, settle_uncontested
from engine.stakes import Options, Stakes, check_players

MAX_PLAYERS = 8
DECK_SIZE = 52
_UP_INDICES = (2, 3, 4, 5)
_ORDINAL = {3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh"}
# Globals, not enum class attributes, on the hot path (see engine.betting).
_FOLD, _BRING_IN, _BET_BIG, _RAISE_BIG = Action.FOLD, Action.BRING_IN, Action.BET_BIG, Action.RAISE_BIG


class Hand:
    """One hand of a stud game (stud hi-lo unless ``game`` says), from the antes to the split of the last pot."""

    def __init__(
        self,
        *,
        stakes: Stakes,
        names: Sequence[str],
        stacks: Sequence[int],
        dealer: CardSource,
        options: Options | None = None,
        game: Game = Game.STUD8,
    ) -> None:
        check_players(names, stacks, most=MAX_PLAYERS)
        self.game = game
        self.rules: GameRules = RULES_OF[game]
        self.stakes = stakes
        self.options = options if options is not None else Options()
        self.names: tuple[str, ...] = tuple(names)
        self.starting_stacks: tuple[int, ...] = tuple(stacks)
        self.stacks: list[int] = list(stacks)
        self.dealer = dealer
        n = len(names)
        self.seat_count = n
        self.cards: list[list[Card]] = [[] for _ in range(n)]
        self.keys: list[int] = [0] * n
        self.community: Card | None = None
        self.folded: list[bool] = [False] * n
        self.contributed: list[int] = [0] * n
        self.round_bets: list[int] = [0] * n
        self.returned: list[int] = [0] * n
        self.street = 3
        self.actor: int | None = None
        self.current_bet = 0
        self.full_bets = 0
        self.bring_in_seat: int | None = None
        self.first_actors: dict[int, int] = {}
        self.actions: list[Action] = []
        self.events: list[Event] = []
        self.pot_results: list[PotResult] = []
        self.show_order: list[int] = []
        self.dealt_count = 0
        self.is_over = False
        self._live_count = n
        self._pending: list[bool] = [False] * n
        self.may_raise_flags: list[bool] = [False] * n
        self.cap_reached = False
        self.awaiting_bring_in = False
        """True while the bring-in player has yet to post it or complete (rule 5). Plain attributes, this
        and :attr:`double_bet_open`, as the round's others: the betting rules read them every action."""
        self._last_aggressor: int | None = None
        self._round_first: int | None = None
        self._legal: tuple[Action, ...] | None = None
        self.double_bet_allowed = False
        """G5: fourth street of Stud opened with a pair showing (set when the street is dealt)."""
        self.double_bet_open = False
        """G5: the big bet may still be chosen on this fourth street (a pair shows, nobody bet big yet)."""
        self._big_step = False
        self._start()

    # ----------------------------------------------------------------- queries

    @property
    def actor_name(self) -> str | None:
        """Name of the player who must act, or None when nobody must."""
        return None if self.actor is None else self.names[self.actor]

    def can_act(self, seat: int) -> bool:
        """True if the seat is in the hand and has chips behind (not folded, not all-in)."""
        return not self.folded[seat] and self.stacks[seat] > 0

    def is_all_in(self, seat: int) -> bool:
        return not self.folded[seat] and self.stacks[seat] == 0

    @property
    def live_seats(self) -> list[int]:
        """Seats still in the hand (not folded), all-in ones included."""
        return [s for s in range(self.seat_count) if not self.folded[s]]

    @property
    def limit(self) -> int:
        """The fixed bet of the current street (G5: the big bet on fourth street once somebody bet it)."""
        if self.street <= 4 and not self._big_step:
            return self.stakes.small_bet
        return self.stakes.big_bet

    @property
    def to_call(self) -> int:
        """Chips the player to act must add to call (0 if nobody must act)."""
        if self.actor is None:
            return 0
        return min(self.current_bet - self.round_bets[self.actor], self.stacks[self.actor])

    @property
    def pot_total(self) -> int:
        """Every chip in the middle: previous streets and this round's bets."""
        return sum(self.contributed)

    def up_cards(self, seat: int) -> list[Card]:
        """The seat's face-up cards (door, fourth, fifth, sixth)."""
        cards = self.cards[seat]
        return [cards[i] for i in _UP_INDICES if i < len(cards)]

    def down_cards(self, seat: int) -> list[Card]:
        """The seat's face-down cards (first two and seventh): private to that player."""
        cards = self.cards[seat]
        return [cards[i] for i in (0, 1, 6) if i < len(cards)]

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the player to act may take now (empty when nobody must act)."""
        if self._legal is None:
            self._legal = legal_now(self)
        return self._legal

    def can(self, action: Action | str) -> bool:
        """True if ``action`` is legal now: :meth:`verify` not raising."""
        try:
            self.verify(action)
        except EngineError:
            return False
        return True

    def can_fold(self) -> bool:
        return Action.FOLD in self.legal_actions()

    def can_check(self) -> bool:
        return Action.CHECK in self.legal_actions()

    def can_call(self) -> bool:
        return Action.CALL in self.legal_actions()

    def can_bet(self) -> bool:
        return Action.BET in self.legal_actions()

    def can_raise(self) -> bool:
        return Action.RAISE in self.legal_actions()

    def can_complete(self) -> bool:
        return Action.COMPLETE in self.legal_actions()

    def can_bring_in(self) -> bool:
        return Action.BRING_IN in self.legal_actions()

    def can_bet_big(self) -> bool:
        return Action.BET_BIG in self.legal_actions()

    def can_raise_big(self) -> bool:
        return Action.RAISE_BIG in self.legal_actions()

    def amount_of(self, action: Action | str) -> int:
        """Chips ``action`` would put in now (0 for check and fold), capped by the stack."""
        seat = self.actor
        return 0 if seat is None else chips_for(self, seat, _as_action(action))

    def total_after(self, action: Action | str) -> int:
        """The player's chips in front of them this round after ``action`` ("raise to 10")."""
        seat = self.actor
        return 0 if seat is None else self.round_bets[seat] + self.amount_of(action)

    def verify(self, action: Action | str, *, seat: int | None = None) -> Action:
        """Raise the precise error if ``action`` (by ``seat``, if given) is not legal now."""
        parsed = _as_action(action)
        if self.is_over:
            raise HandOverError(f"the hand is over: {parsed.value!r} comes too late")
        actor = self.actor
        assert actor is not None
        if seat is not None and seat != actor:
            who = self.names[seat] if 0 <= seat < self.seat_count else f"seat {seat}"
            raise NotYourTurnError(
                f"it is {self.names[actor]}'s turn on {_ORDINAL[self.street]} street, not {who}'s"
            )
        legal = self.legal_actions()
        if parsed not in legal:
            why = why_not(self, parsed)
            raise IllegalActionError(
                f"{self.names[actor]} cannot {parsed.value} on {_ORDINAL[self.street]} street: "
                f"{why.text}; legal now: {self.describe_legal()}",
                reason=why.reason, amount=why.amount, action=parsed.value,
            )
        return parsed

    def default_action(self) -> Action:
        """What a player who leaves or runs out of time does (rule 5): the bring-in if it
        is due, a check when checking is free, else a fold.

        >>> from engine import ScriptedDealer, parse_cards
        >>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[50, 50],
        ...             dealer=ScriptedDealer(cards=[parse_cards("Ah 2h 3h"), parse_cards("Kc Kd 2c")]))
        >>> hand.default_action().value
        'bring-in'
        """
        legal = self.legal_actions()
        if not legal:
            raise HandOverError("the hand is over: nobody has to act")
        if Action.BRING_IN in legal:
            return Action.BRING_IN
        return Action.CHECK if Action.CHECK in legal else Action.FOLD

    def describe_legal(self) -> str:
        """The legal actions with their amounts, e.g. ``'call 5, raise to 10, fold'``."""
        parts = []
        for a in self.legal_actions():
            if a in (Action.CHECK, Action.FOLD):
                parts.append(a.value)
            elif a in (Action.RAISE, Action.COMPLETE, Action.RAISE_BIG):
                parts.append(f"{a.value} to {self.total_after(a)}")
            else:
                parts.append(f"{a.value} {self.amount_of(a)}")
        return ", ".join(parts) if parts else "nothing"

    # ----------------------------------------------------------------- acting

    def act(self, action: Action | str, *, seat: int | None = None) -> None:
        """Take ``action`` for the player to act (``seat``, if given, must be theirs)."""
        parsed = action if action.__class__ is Action else _as_action(action)
        actor = self.actor
        legal = self._legal
        if legal is None:
            legal = self._legal = legal_now(self)
        # The checks of verify, the legal ones' way first; verify says what is wrong with the others.
        if actor is None or self.is_over or (seat is not None and seat != actor) or parsed not in legal:
            self.verify(parsed, seat=seat)
            raise AssertionError("verify refuses what act does not take")  # pragma: no cover
        self._apply(actor, parsed, legal)

    def fold(self, *, seat: int | None = None) -> None:
        self.act(Action.FOLD, seat=seat)

    def check(self, *, seat: int | None = None) -> None:
        self.act(Action.CHECK, seat=seat)

    def call(self, *, seat: int | None = None) -> None:
        self.act(Action.CALL, seat=seat)

    def bet(self, *, seat: int | None = None) -> None:
        self.act(Action.BET, seat=seat)

    def raise_bet(self, *, seat: int | None = None) -> None:
        self.act(Action.RAISE, seat=seat)

    def complete(self, *, seat: int | None = None) -> None:
        self.act(Action.COMPLETE, seat=seat)

    def post_bring_in(self, *, seat: int | None = None) -> None:
        self.act(Action.BRING_IN, seat=seat)

    # ----------------------------------------------------------------- rules

    def may_raise(self, seat: int) -> bool:
        """False for a player whom a short all-in did not reopen the betting for (rule 12)."""
        return self.may_raise_flags[seat]

    @property
    def big_step(self) -> bool:
        """G5: somebody bet or raised by the big bet on this fourth street."""
        return self._big_step

    @property
    def is_capped(self) -> bool:
        """True once the round's betting is capped (rule 6)."""
        return is_capped(self)

    def _apply(self, seat: int, action: Action, legal: tuple[Action, ...]) -> None:
        amount = chips_for(self, seat, action)
        stacks = self.stacks
        if action is _FOLD:
            self.folded[seat] = True
            self._live_count -= 1
        elif amount:
            stacks[seat] -= amount
            self.round_bets[seat] += amount
            self.contributed[seat] += amount
        total = self.round_bets[seat]
        self._pending[seat] = False
        self.may_raise_flags[seat] = False
        if action is _BRING_IN:
            self.awaiting_bring_in = False
            self.current_bet = total
        elif action in AGGRESSIVE:
            self._raised(seat, action, total)
        self.actions.append(action)
        # ActionTaken(street, seat, action, amount, total, all_in, legal): positional, as it is made every action
        self.events.append(ActionTaken(self.street, seat, action, amount, total,
                                       stacks[seat] == 0 and action is not _FOLD, legal))
        self._legal = None
        # The next seat clockwise still to act, if the hand goes on; else the round is over.
        if self._live_count > 1:
            pending, folded, n = self._pending, self.folded, self.seat_count
            s = seat
            for _ in range(n):
                s = s + 1 if s + 1 < n else 0
                if pending[s] and not folded[s] and stacks[s] > 0:
                    self.actor = s
                    return
        self._round_over()

    def _raised(self, seat: int, action: Action, total: int) -> None:
        """A complete, bet or raise to ``total``: it is the bet now; who has to act again (rule 12)."""
        old_bet = self.current_bet
        self.awaiting_bring_in = False
        self.current_bet = total
        self._last_aggressor = seat
        full = counts_as_full(self, action=action, new_total=total, old_bet=old_bet)
        if action is _BET_BIG or action is _RAISE_BIG:
            self._big_step = True  # G5: every later bet of the round is the big one
            self.double_bet_open = False
        if full:
            self.full_bets += 1
            if self.full_bets >= CAP and (self.options.heads_up_cap or actors_count(self) > 2):
                self.cap_reached = True
        rb, st, fo, pending, may = self.round_bets, self.stacks, self.folded, self._pending, self.may_raise_flags
        for o in range(self.seat_count):
            if o != seat and not fo[o] and st[o] > 0:
                if full:
                    pending[o] = True
                    may[o] = True
                elif rb[o] < total:
                    pending[o] = True

    def _round_over(self) -> None:
        """Nobody has to act any more: the hand is won (everybody else folded) or the next street comes."""
        self.actor = None
        self._end_round()
        if self._live_count == 1:
            self._finish(winner=self.folded.index(False))
        else:
            self._next_street()

    # ----------------------------------------------------------------- flow

    def _start(self) -> None:
        ante = self.stakes.ante
        if ante:
            for s in range(self.seat_count):
                paid = min(ante, self.stacks[s])
                self.stacks[s] -= paid
                self.contributed[s] += paid
                self.events.append(AntePosted(s, paid, self.stacks[s] == 0))
        self._deal_street()
        if actors_count(self) < 2:
            self._return_unmatched_ante()
            self._run_out()
            return
        lowest = self.rules.bring_in([cards[2] for cards in self.cards])  # rule 4, G1, G2
        bring_in = self._next_actor_from(lowest)
        self.bring_in_seat = bring_in
        self._begin_round(first=bring_in)
        self.awaiting_bring_in = True

    def _deal_street(self) -> None:
        street = self.street
        self.events.append(StreetBegan(street))
        folded = self.folded
        live = [s for s in range(self.seat_count) if not folded[s]]
        if street == 3:
            for face_up in (False, False, True):
                self._deal_round(live, face_up)
        elif street == 7 and DECK_SIZE - self.dealt_count < len(live):
            card = self.dealer.deal_community()
            self.community = card
            self.dealt_count += 1
            self.keys = [k + card.key for k in self.keys]
            self.events.append(CommunityCardDealt(card=card))
        else:
            self._deal_round(live, street != 7)

    def _deal_round(self, seats: list[int], face_up: bool) -> None:
        """A card to each of ``seats`` in turn."""
        deal, cards, keys, events, street = self.dealer.deal, self.cards, self.keys, self.events, self.street
        for seat in seats:
            card = deal(seat)
            cards[seat].append(card)
            keys[seat] += card.key
            self.dealt_count += 1
            events.append(CardDealt(seat, card, face_up, street))  # (seat, card, face_up, street): ~42 a hand

    def _next_actor_from(self, seat: int) -> int:
        """``seat`` if it can act, else the next seat clockwise that can."""
        n, folded, stacks = self.seat_count, self.folded, self.stacks
        for i in range(n):
            s = (seat + i) % n
            if not folded[s] and stacks[s] > 0:  # can_act(s)
                return s
        raise AssertionError("no seat can act")  # callers check there are actors

    def _begin_round(self, *, first: int) -> None:
        n = self.seat_count
        self.round_bets = [0] * n
        self.current_bet = 0
        self.full_bets = 0
        self.cap_reached = False
        self._last_aggressor = None
        self.may_raise_flags = [True] * n
        self._pending = [not f and st > 0 for f, st in zip(self.folded, self.stacks)]  # can_act(s)
        self._round_first = first
        self._big_step = False
        self.double_bet_open = self.street == 4 and self.rules.double_bet_on(
            (self.up_cards(s) for s in self.live_seats), option=self.options.open_pair_double)  # G5
        if self.double_bet_open:
            self.double_bet_allowed = True
        self.first_actors[self.street] = first
        self.actor = first
        self._legal = None
        self.events.append(BettingBegan(self.street, first))

    def _end_round(self) -> None:
        """Return the chips nobody called (rule 13)."""
        if not self.current_bet:
            return  # nobody bet this round
        uncalled = _unmatched(self.round_bets)
        if uncalled is not None:
            seat, excess = uncalled
            self.round_bets[seat] -= excess
            self._give_back(seat, excess)

    def _return_unmatched_ante(self) -> None:
        """Rule 13 for antes: with no betting to come, the part of an ante nobody matched goes back."""
        uncalled = _unmatched(self.contributed)
        if uncalled is not None:
            self._give_back(*uncalled)

    def _give_back(self, seat: int, excess: int) -> None:
        self.stacks[seat] += excess
        self.contributed[seat] -= excess
        self.returned[seat] += excess
        self.events.append(UncalledReturned(seat=seat, amount=excess))

    def _first_actor(self) -> int:
        if self.street == 7 and 6 in self.first_actors:
            return self._next_actor_from(self.first_actors[6])  # rule 9
        cards, folded, board_key = self.cards, self.folded, self.rules.board_key
        best, best_key = -1, None
        for s in range(self.seat_count):  # rule 8, G3, G4: the best up cards; equal boards, the lowest seat
            if not folded[s]:
                key = board_key(cards[s][2:6])
                if best_key is None or key > best_key:
                    best, best_key = s, key
        return self._next_actor_from(best)

    def _next_street(self) -> None:
        if self.street == 7:
            self._showdown()
            return
        self.street += 1
        self._deal_street()
        if actors_count(self) < 2:
            self._run_out()
            return
        self._begin_round(first=self._first_actor())

    def _run_out(self) -> None:
        """Rule 13: at most one player can still bet: deal the rest, then the showdown."""
        self.actor = None
        self._legal = None
        while self.street < 7:
            self.street += 1
            self._deal_street()
        self._showdown()

    def _showdown(self) -> None:
        self.actor = None
        self._legal = None
        self._close(settle_showdown(self))

    def _finish(self, *, winner: int) -> None:
        self.actor = None
        self._legal = None
        self._close(settle_uncontested(self, winner=winner))

    def _close(self, settlement: Settlement) -> None:
        """Apply the end of the hand: the hands shown, the pots paid; then the hand is over."""
        self.show_order = list(settlement.show_order)
        self.pot_results = list(settlement.results)
        self.events.extend(settlement.events)
        stacks = self.stacks
        for seat, chips in enumerate(settlement.won):
            stacks[seat] += chips
        self.is_over = True
        self.events.append(HandEnded(stacks=tuple(self.stacks)))

    # ----------------------------------------------------------------- showdown support

    def high_value(self, seat: int) -> int:
        """The seat's best high hand value so far (own cards plus the community card)."""
        cards = self.cards[seat]  # read only for a flush: no copy without a community card
        community = self.community
        return high_value_of_key(key=self.keys[seat], cards=cards if community is None else [*cards, community])

    def low_value(self, seat: int) -> int | None:
        """The seat's low of the game: eight-or-better (None without one), Razz's ace-to-five
        (:mod:`engine.lowball`), or None in Stud, which has no low."""
        scoring = self.rules.scoring
        if scoring is Scoring.HIGH or len(self.cards[seat]) + (self.community is not None) < 5:
            return None
        if scoring is Scoring.LOW:
            return razz_value_of_key(self.keys[seat])
        return low_value_of_key(self.keys[seat])

    @property
    def scoring(self) -> Scoring:
        """What the pots are divided by (rules 17-19, G6, G7)."""
        return self.rules.scoring

    def all_cards(self, seat: int) -> list[Card]:
        """The seat's cards plus the community card, if one was dealt."""
        cards = self.cards[seat]
        return [*cards, self.community] if self.community is not None else list(cards)

    @property
    def last_aggressor(self) -> int | None:
        """Who made the last bet, complete or raise of the last betting round (rule 15)."""
        return self._last_aggressor

    @property
    def last_round_first(self) -> int | None:
        return self._round_first

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"{_ORDINAL[self.street]} street, {self.actor_name} to act"
        game = "" if self.game is Game.STUD8 else f" ({self.game.label})"
        return f"<Hand{game} {', '.join(self.names)}: {state}>"


def _unmatched(amounts: Sequence[int]) -> tuple[int, int] | None:
    """(seat, chips) of the part of the largest amount that no other amount reaches, if any."""
    ordered = sorted(amounts)
    excess = ordered[-1] - ordered[-2]  # the largest less the largest of the others
    return (amounts.index(ordered[-1]), excess) if excess > 0 else None


def _as_action(action: Action | str) -> Action:
    return action if isinstance(action, Action) else Action.from_str(action)
