"""A finished hand as PokerStars writes a stud hand history (POKERSTARS_FORMAT.md): 7 Card Stud
Hi/Lo, ``7 Card Stud Limit`` and ``Razz Limit`` (GAMES.md G9), each named as the game's real hands
name it: Stud's shown hands by their high alone (``a pair of Jacks``), Razz's by their low
(``Lo: 9,7,5,4,2``, tens to kings as ``T J Q K``, a pair's ranks first), and a Stud fourth street
with an open pair (G5) says ``Pair on board - a double bet is allowed``; the double bet itself is
written as any bet or raise (``bets 80``, ``raises 80 to 120``), as PokerStars writes it.

Written from one viewer's seat: their down cards appear on their ``Dealt to`` lines,
everybody else's only when shown at the showdown. Every line's spelling follows real
PokerStars files (tests/data/pokerstars/). Choices where no real file shows the case:

* Seventh-street community card (rule 10): ``*** RIVER *** [Jc]``, the card in brackets on
  the street line as flop games write a board card, and no ``Dealt to`` line on the river.
* Two or more players who win both halves of one pot: the pot is divided once among them
  (rule 19), and each one's share is written as two collect lines, its two halves.
* Side pots: ``from side pot`` and ``Side pot <S>.`` when there is one, ``side pot-1`` ... when
  there are more, as PokerStars writes hold'em pots.

A bring-in player who completes at once ``bets`` (as real PokerStars stud hands show).

>>> from datetime import datetime, timezone
>>> from engine import Hand, ScriptedDealer, Stakes, parse_cards
>>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[50, 50], dealer=ScriptedDealer(
...     cards=[parse_cards("Ah 2h 3h"), parse_cards("Kc Kd 2c")]))
>>> hand.act("bring-in"); hand.act("complete"); hand.act("fold")
>>> meta = HandMeta(number=7, table="Home", played_at=datetime(2026, 1, 5, 3, 4, 5, tzinfo=timezone.utc),
...                 viewer="ann")
>>> print(pokerstars_text(hand, meta))  # doctest: +NORMALIZE_WHITESPACE
PokerStars Hand #7:  7 Card Stud Hi/Lo Limit (5/10) - 2026/01/04 22:04:05 ET
Table 'Home' 8-max (Play Money)
Seat 1: ann (50 in chips)
Seat 2: bob (50 in chips)
ann: posts the ante 1
bob: posts the ante 1
*** 3rd STREET ***
Dealt to ann [Ah 2h 3h]
Dealt to bob [2c]
bob: brings in for 2
ann: raises 3 to 5
bob: folds
Uncalled bet (3) returned to ann
ann collected 6 from pot
ann: doesn't show hand
*** SUMMARY ***
Total pot 6 | Rake 0
Seat 1: ann collected (6)
Seat 2: bob folded on the 3rd Street
"""

from __future__ import annotations

from typing import Final
from zoneinfo import ZoneInfo

from bot.history.exports.common import (
    ExportError,
    HandMeta,
    Tournament,
    check_finished,
    seat_numbers,
    viewer_seat,
    written_names,
)
from engine import Action, Card, Hand, ShortAllIn, Stakes
from engine.evaluate import HandCategory, HighHand, LowHand, best_high, best_low
from engine.events import (
    ActionTaken,
    AntePosted,
    BettingBegan,
    CommunityCardDealt,
    HandShown,
    StreetBegan,
    UncalledReturned,
)
from engine.games import Game, Scoring
from engine.lowball import best_razz
from engine.order import high_odd_chip_key, low_odd_chip_key
from engine.pots import PotResult, split_evenly

EASTERN = ZoneInfo("America/New_York")
STREET_TITLES = {3: "3rd STREET", 4: "4th STREET", 5: "5th STREET", 6: "6th STREET", 7: "RIVER"}
STREET_WORDS = {3: "3rd Street", 4: "4th Street", 5: "5th Street", 6: "6th Street", 7: "River"}
_ONE = {2: "Deuce", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine", 10: "Ten",
        11: "Jack", 12: "Queen", 13: "King", 14: "Ace"}
_MANY = {r: ("Sixes" if r == 6 else n + "s") for r, n in _ONE.items()}
_CAP = 4


def cards_text(cards: list[Card] | tuple[Card, ...]) -> str:
    return "[" + " ".join(map(str, cards)) + "]"


def high_words(high: HighHand) -> str:
    """A high hand as PokerStars names it: ``a pair of Sixes``, ``a straight, Three to Seven``."""
    ranks = [c.rank for c in high.cards]
    cat = high.category
    if cat is HandCategory.STRAIGHT_FLUSH:
        return "a Royal Flush" if ranks[0] == 14 else f"a straight flush, {_ONE[ranks[4]]} to {_ONE[ranks[0]]}"
    if cat is HandCategory.FOUR_OF_A_KIND:
        return f"four of a kind, {_MANY[ranks[0]]}"
    if cat is HandCategory.FULL_HOUSE:
        return f"a full house, {_MANY[ranks[0]]} full of {_MANY[ranks[3]]}"
    if cat is HandCategory.FLUSH:
        return f"a flush, {_ONE[ranks[0]]} high"
    if cat is HandCategory.STRAIGHT:
        return f"a straight, {_ONE[ranks[4]]} to {_ONE[ranks[0]]}"
    if cat is HandCategory.THREE_OF_A_KIND:
        return f"three of a kind, {_MANY[ranks[0]]}"
    if cat is HandCategory.TWO_PAIR:
        return f"two pair, {_MANY[ranks[0]]} and {_MANY[ranks[2]]}"
    if cat is HandCategory.ONE_PAIR:
        return f"a pair of {_MANY[ranks[0]]}"
    return f"high card {_ONE[ranks[0]]}"


def low_words(low: LowHand) -> str:
    """``8,6,3,2,A``: the low's ranks high to low, the ace as ``A``."""
    return ",".join("A" if c.low_rank == 1 else str(c.low_rank) for c in low.cards)


_RAZZ_LETTERS = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}
GAME_NAMES: Final = {Game.STUD8: "7 Card Stud Hi/Lo Limit", Game.STUD: "7 Card Stud Limit", Game.RAZZ: "Razz Limit"}
"""The game as a PokerStars header names it (G9)."""
DOUBLE_BET_LINE: Final = "Pair on board - a double bet is allowed"


def razz_words(cards: tuple[Card, ...]) -> str:
    """A razz low as PokerStars writes it: ``Lo: T,5,3,2,A``; a paired low's pair first.

    >>> from engine import parse_cards
    >>> razz_words(parse_cards("Ac 3d Th 5s 2h Js 5h")), razz_words(parse_cards("3d 3s 5h 4h 3c"))
    ('Lo: T,5,3,2,A', 'Lo: 3,3,3,5,4')
    """
    low = best_razz(cards)
    return "Lo: " + ",".join(_RAZZ_LETTERS.get(c.low_rank, str(c.low_rank)) for c in low.cards)


def hand_words(cards: tuple[Card, ...], *, game: Game = Game.STUD8) -> str:
    """A shown hand's words for its game: Stud Hi/Lo's ``HI: ...`` and, when there is one,
    ``; LO: ...``; Stud's high alone; Razz's ``Lo: ...``."""
    if game is Game.RAZZ:
        return razz_words(cards)
    if game is Game.STUD:
        return high_words(best_high(cards))
    text = "HI: " + high_words(best_high(cards))
    low = best_low(cards)
    return text if low is None else f"{text}; LO: {low_words(low)}"


def eastern_time(meta: HandMeta) -> str:
    when = meta.played_at.astimezone(EASTERN)
    return f"{when:%Y/%m/%d} {when.hour}:{when:%M:%S} ET"


def pot_labels(count: int) -> list[str]:
    """``pot``; or ``main pot``, ``side pot``; or ``main pot``, ``side pot-1``, ``side pot-2`` ..."""
    if count == 1:
        return ["pot"]
    if count == 2:
        return ["main pot", "side pot"]
    return ["main pot", *(f"side pot-{i}" for i in range(1, count))]


RING_BIG_BETS: Final = frozenset({1, 2, 4, 6, 8, 10, 16, 20, 30, 40, 50, 60, 80, 100, 150, 200, 400, 500, 600, 800,
                                  1000, 2000, 4000, 10000, 20000, 40000})
"""The big bets of PokerStars' own fixed-limit ring stakes in whole chips: the only ring stakes fpdb,
the one tracker that imports stud, reads (its converter looks a ring game's limit up in this list
and skips the hand otherwise)."""
CASH_TOURNAMENT_BASE: Final = 10 ** 9
"""A cash table at a stake outside :data:`RING_BIG_BETS` is written as a home-game tournament
numbered this plus the table's number: above every sit-and-go's number, so the two never meet."""


def roman(number: int) -> str:
    """A level as PokerStars numbers it.

    >>> roman(1), roman(9), roman(14), roman(40)
    ('I', 'IX', 'XIV', 'XL')
    """
    if number < 1:
        raise ExportError(f"no roman numeral for {number}")
    out = []
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def header_lines(stakes: Stakes, meta: HandMeta, *, game: Game = Game.STUD8) -> list[str]:
    """The first two lines: the hand's header and its table, in the form fpdb reads for the case.

    A cash table at one of PokerStars' stakes is a play-money ring game; a sit-and-go hand is a
    tournament hand (number, buy-in, level), its table ``'<tournament> <table>'``; a cash table at
    any other stake is a home-game freeroll at level I named after the table (fpdb reads a
    tournament at any stakes, a ring game only at PokerStars' own).

    >>> from datetime import datetime, timezone
    >>> at = datetime(2026, 1, 5, 3, 4, 5, tzinfo=timezone.utc)
    >>> from engine import Stakes
    >>> print(*header_lines(Stakes(), HandMeta(number=30, table="Stud discord 42", played_at=at)), sep="\\n")
    PokerStars Hand #30:  7 Card Stud Hi/Lo Limit (5/10) - 2026/01/04 22:04:05 ET
    Table 'Stud discord 42' 8-max (Play Money)
    >>> odd = Stakes(ante=1, bring_in=2, small_bet=7, big_bet=14)
    >>> header, table = header_lines(odd, HandMeta(number=31, table="Stud discord 42", played_at=at, table_id=5))
    >>> print(*header.split(" - "), table, sep="\\n")
    PokerStars Home Game Hand #31: {Stud discord 42} Tournament #1000000005, Freeroll  7 Card Stud Hi/Lo Limit
    Level I (7/14)
    2026/01/04 22:04:05 ET
    Table '1000000005 1' 8-max
    >>> tourney = Tournament(number=12, buyin=100, level=9)
    >>> print(*header_lines(odd, HandMeta(number=32, table="x", played_at=at, tournament=tourney))[0].split(" - "))
    PokerStars Hand #32: Tournament #12, 100+0 7 Card Stud Hi/Lo Limit Level IX (7/14) 2026/01/04 22:04:05 ET
    >>> header_lines(Stakes(), HandMeta(number=33, table="x", played_at=at), game=Game.RAZZ)[0]
    'PokerStars Hand #33:  Razz Limit (5/10) - 2026/01/04 22:04:05 ET'
    """
    name = GAME_NAMES[game]
    when = eastern_time(meta)
    limits = f"({stakes.small_bet}/{stakes.big_bet})"
    tournament, home = meta.tournament, ""
    if tournament is None:
        if stakes.big_bet in RING_BIG_BETS:
            table = " ".join(meta.table.replace("'", "").split()) or "Table"
            return [f"PokerStars Hand #{meta.number}:  {name} {limits} - {when}",
                    f"Table '{table}' 8-max (Play Money)"]
        tournament = Tournament(number=CASH_TOURNAMENT_BASE + meta.table_id, buyin=0, level=1)
        club = " ".join(meta.table.replace("{", "").replace("}", "").split()) or "Home"
        home = f" Home Game Hand #{meta.number}: {{{club}}}"
    entry = "Freeroll " if tournament.buyin == 0 else f"{tournament.buyin}+0"
    return [f"PokerStars{home or f' Hand #{meta.number}:'} Tournament #{tournament.number}, {entry} {name}"
            f" - Level {roman(tournament.level)} {limits} - {when}",
            f"Table '{tournament.number} {tournament.table_no}' 8-max"]


def pokerstars_text(hand: Hand, meta: HandMeta) -> str:
    """The hand history of one finished hand, lines joined by newlines (no trailing newline)."""
    return "\n".join(_Writer(hand, meta).lines())


class _Writer:
    def __init__(self, hand: Hand, meta: HandMeta) -> None:
        check_finished(hand)
        self.hand = hand
        self.meta = meta
        self.names = written_names(hand, meta)
        self.viewer = viewer_seat(hand, meta)
        self.seats = seat_numbers(hand, meta)
        self.out: list[str] = []
        self.stacks = list(hand.starting_stacks)
        self.folded = [False] * hand.seat_count
        self.fold_street: dict[int, int] = {}
        self.voluntary = [0] * hand.seat_count
        self.current_bet = 0
        self.full_bets = 0
        self.capped = False
        self.big_step = False

    def lines(self) -> list[str]:
        hand, meta, out = self.hand, self.meta, self.out
        out += header_lines(hand.stakes, meta, game=hand.game)
        for seat, name in enumerate(self.names):
            out.append(f"Seat {self.seats[seat]}: {name} ({hand.starting_stacks[seat]} in chips)")
        shown: list[HandShown] = []
        for event in hand.events:
            if isinstance(event, AntePosted):
                self.stacks[event.seat] -= event.amount
                tail = " and is all-in" if event.all_in else ""
                out.append(f"{self.names[event.seat]}: posts the ante {event.amount}{tail}")
            elif isinstance(event, StreetBegan):
                self._street(event.street)
            elif isinstance(event, BettingBegan):
                self.current_bet = self.full_bets = 0
                self.capped = self.big_step = False
                if event.street == 4 and hand.double_bet_allowed:
                    out.append(DOUBLE_BET_LINE)
            elif isinstance(event, ActionTaken):
                self._action(event)
            elif isinstance(event, UncalledReturned):
                self.stacks[event.seat] += event.amount
                out.append(f"Uncalled bet ({event.amount}) returned to {self.names[event.seat]}")
            elif isinstance(event, HandShown):
                if not shown:
                    out.append("*** SHOW DOWN ***")
                shown.append(event)
                out.append(f"{self.names[event.seat]}: shows {cards_text(event.all_cards)}"
                           f" ({hand_words(event.all_cards, game=hand.game)})")
            elif isinstance(event, CommunityCardDealt):
                pass  # written on the RIVER line
        self._collect(showdown=bool(shown))
        self._summary({e.seat: e for e in shown})
        return out

    # ------------------------------------------------------------ streets and actions

    def _street(self, street: int) -> None:
        hand, out = self.hand, self.out
        self.current_bet = self.full_bets = 0
        self.capped = False
        live = [s for s in range(hand.seat_count) if not self.folded[s]]
        if street == 7 and hand.community is not None:
            out.append(f"*** RIVER *** [{hand.community}]")
            return
        out.append(f"*** {STREET_TITLES[street]} ***")
        for seat in live:
            cards = hand.cards[seat]
            name = self.names[seat]
            if street == 3:
                shown = cards[0:3] if seat == self.viewer else cards[2:3]
                out.append(f"Dealt to {name} {cards_text(shown)}")
                continue
            k = street - 1
            if seat == self.viewer:
                out.append(f"Dealt to {name} {cards_text(cards[0:k])} [{cards[k]}]")
            elif street < 7:
                out.append(f"Dealt to {name} {cards_text(cards[2:k])} [{cards[k]}]")

    def _action(self, e: ActionTaken) -> None:
        name = self.names[e.seat]
        before = self.current_bet
        tail = " and is all-in" if e.all_in else ""
        self.stacks[e.seat] -= e.amount
        self.voluntary[e.seat] += e.amount
        action = e.action
        if action is Action.FOLD:
            self.folded[e.seat] = True
            self.fold_street[e.seat] = e.street
            self.out.append(f"{name}: folds")
            return
        if action is Action.CHECK:
            self.out.append(f"{name}: checks")
            return
        if action is Action.CALL:
            self.out.append(f"{name}: calls {e.amount}{tail}")
            return
        if action is Action.BRING_IN:
            self.current_bet = max(before, e.total)
            self.out.append(f"{name}: brings in for {e.amount}{tail}")
            return
        self.current_bet = max(before, e.total)
        if before == 0:
            self.out.append(f"{name}: bets {e.amount}{tail}")
        else:
            self.out.append(f"{name}: raises {e.total - before} to {e.total}{tail}")
        big = action in (Action.BET_BIG, Action.RAISE_BIG) or self.big_step
        self.big_step = big
        if self._counts_as_full(action, e.total, before, e.street, big=big):
            self.full_bets += 1
            hand = self.hand
            actors = sum(1 for s in range(hand.seat_count) if not self.folded[s] and self.stacks[s] > 0)
            if self.full_bets >= _CAP and not self.capped and (hand.options.heads_up_cap or actors > 2):
                self.capped = True
                self.out.append("Betting is capped")

    def _counts_as_full(self, action: Action, total: int, before: int, street: int, *, big: bool) -> bool:
        """Rule 12 (G5: a bet or raise by the big bet on fourth street is judged against it)."""
        limit = self.hand.stakes.big_bet if big else self.hand.stakes.limit(street)
        size = total - before if action in (Action.RAISE, Action.RAISE_BIG) else total
        if self.hand.options.short_all_in is ShortAllIn.HALF:
            return 2 * size >= limit
        return size >= limit

    # ------------------------------------------------------------ the end

    def _halves(self, result: PotResult) -> list[tuple[int, int]]:
        """(seat, chips) collect lines of one pot: the high half's winners, then the low half's.

        A scoop is two lines (high half, then low half). Players who win both halves together
        share the pot as one (rule 19), so each one's share is written as two halves of it.
        """
        if not result.low or self.hand.scoring is not Scoring.HI_LO:
            return sorted(result.shares.items())
        if set(result.low) == set(result.high):
            shares = sorted(result.shares.items())
            return [*((s, c - c // 2) for s, c in shares), *((s, c // 2) for s, c in shares)]
        hand = self.hand
        live = list(result.eligible)
        high_order = sorted(live, key=lambda s: high_odd_chip_key(hand.cards[s]), reverse=True)
        low_order = sorted(live, key=lambda s: low_odd_chip_key(hand.cards[s]))
        low_half = result.amount // 2
        high = split_evenly(amount=result.amount - low_half, winners=result.high, order=high_order)
        low = split_evenly(amount=low_half, winners=result.low, order=low_order)
        total = {s: high.get(s, 0) + low.get(s, 0) for s in set(high) | set(low)}
        if total != dict(result.shares):  # the engine's split is the truth; never write other numbers
            return [(s, c) for s, c in sorted(result.shares.items())]
        return [*sorted(high.items()), *sorted(low.items())]

    def _collect(self, *, showdown: bool) -> None:
        results = self.hand.pot_results
        labels = pot_labels(len(results)) if results else []
        for index in reversed(range(len(results))):
            for seat, chips in self._halves(results[index]):
                if chips:
                    self.out.append(f"{self.names[seat]} collected {chips} from {labels[index]}")
        if not showdown:
            for seat in {s for r in results for s in r.shares}:
                self.out.append(f"{self.names[seat]}: doesn't show hand")
        elif self.hand.scoring is Scoring.HI_LO and not any(r.low for r in results):
            self.out.append("No low hand qualified")

    def _summary(self, shown: dict[int, HandShown]) -> None:
        hand, out = self.hand, self.out
        results = hand.pot_results
        total = sum(r.amount for r in results)
        out.append("*** SUMMARY ***")
        if len(results) <= 1:
            out.append(f"Total pot {total} | Rake 0")
        else:
            labels = pot_labels(len(results))
            parts = " ".join(f"{labels[i].capitalize()} {r.amount}." for i, r in enumerate(results))
            out.append(f"Total pot {total} {parts} | Rake 0")
        won = [0] * hand.seat_count
        for r in results:
            for seat, chips in r.shares.items():
                won[seat] += chips
        for seat, name in enumerate(self.names):
            head = f"Seat {self.seats[seat]}: {name}"
            if seat in self.fold_street:
                bet = "" if self.voluntary[seat] else " (didn't bet)"
                out.append(f"{head} folded on the {STREET_WORDS[self.fold_street[seat]]}{bet}")
            elif seat in shown:
                event = shown[seat]
                cards, words = cards_text(event.all_cards), hand_words(event.all_cards, game=hand.game)
                if won[seat]:
                    out.append(f"{head} showed {cards} and won ({won[seat]}) with {words}")
                else:
                    out.append(f"{head} showed {cards} and lost with {words}")
            else:
                out.append(f"{head} collected ({won[seat]})")
