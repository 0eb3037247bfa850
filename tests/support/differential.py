"""Differential play against PokerKit 0.7.7: the same cards, the same decisions, in each game.

Stud Hi-Lo plays PokerKit's ``FixedLimitSevenCardStudHighLowSplitEightOrBetter``, Stud its
``FixedLimitSevenCardStud`` (which has no open-pair big bet, so this engine plays with
``open_pair_double`` off: GAMES.md G5), Razz its ``FixedLimitRazz``.

Both engines play each random hand in lockstep with PokerKit's settings
(``heads_up_cap: true``, ``short_all_in: "full"``). At every decision the seat to
act, and the legal actions with their chips, must agree; at the end, every
player's payoff. The differences RULES.md lists are recognised, each as its own
category, and counted; anything else is a failure.

Payoff differences are explained with a model of the split: ``split_model``
divides the pots from this engine's showdown facts, with each of PokerKit's four
known quirks switchable. With no quirk on it must give exactly this engine's
payoffs (an independent check of the split); a hand whose PokerKit payoffs are
reproduced by the smallest set of quirks counts one hit for each quirk in it.

Run ``python -m tests.support.differential --game razz --hands 20000`` for the long run
(``--game all`` plays the three games in turn).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from pokerkit_driver import PKHand

from engine import ALL_CARDS, Action, Card, Hand, Options, ScriptedDealer, ShortAllIn, Stakes
from engine.games import Game, Scoring
from engine.order import high_odd_chip_key, low_odd_chip_key

OPTIONS = Options(heads_up_cap=True, short_all_in=ShortAllIn.FULL, open_pair_double=False)

# Categories of RULES.md's "Where PokerKit (0.7.7) differs".
ODD_CHIP_BY_SEAT = "odd chips by seat, not by suit (rule 19)"
HALF_BY_HALF = "identical two-way winners split half by half (rule 19)"
SIDE_POT_LOW_BUG = "side pot split hi/lo with no eligible low (rule 18)"
MERGED_POTS = "hands that can win nothing dropped, then pots with the same contenders merged (rule 11)"
SHORT_BRING_IN = "short bring-in player offered complete (rule 5)"
SHORT_ALL_IN = "all-in for less than a full bet (rule 12)"
SEVENTH_OPENER = "seventh-street opener folded or all-in (rule 9)"
QUIRKS = (ODD_CHIP_BY_SEAT, HALF_BY_HALF, SIDE_POT_LOW_BUG, MERGED_POTS)
CATEGORIES = (*QUIRKS, SHORT_BRING_IN, SHORT_ALL_IN, SEVENTH_OPENER)
SPLIT_QUIRKS = (HALF_BY_HALF, SIDE_POT_LOW_BUG)
"""The quirks of a split into a high and a low half: Stud Hi-Lo only."""

_PK_NAME = {
    Action.BRING_IN: "bring-in", Action.COMPLETE: "cbr", Action.BET: "cbr", Action.RAISE: "cbr",
    Action.CALL: "call", Action.CHECK: "check", Action.FOLD: "fold",
}


class Mismatch(AssertionError):
    """A difference that RULES.md does not list: a failure of the differential test."""


@dataclass
class Tally:
    game: Game = Game.STUD8
    hands: int = 0
    agreed: int = 0
    decisions: int = 0
    categories: Counter[str] = field(default_factory=Counter)
    stopped_early: int = 0

    def report(self) -> str:
        lines = [
            f"{self.game.label}: hands {self.hands}, decisions compared {self.decisions}, "
            f"hands agreeing on everything {self.agreed}, hands stopped at a known divergence {self.stopped_early}"
        ]
        for name in CATEGORIES:
            if self.game is not Game.STUD8 and name in SPLIT_QUIRKS:
                continue
            lines.append(f"  {self.categories[name]:6d}  {name}")
        return "\n".join(lines)


# ---------------------------------------------------------------- split model


def _split(amount: int, winners: Sequence[int], order: Sequence[int], *, by_seat: bool) -> dict[int, int]:
    each, odd = divmod(amount, len(winners))
    shares = dict.fromkeys(winners, each)
    if by_seat:  # PokerKit: the whole remainder to the lowest seat index
        shares[min(winners)] += odd
    else:
        for seat in sorted(winners, key=order.index)[:odd]:
            shares[seat] += 1
    return shares


def split_model(hand: Hand, quirks: frozenset[str]) -> list[int]:
    """Net payoff per seat of a finished hand, dividing its pots under ``quirks``.

    Stud Hi-Lo splits each pot into a high and an eight-or-better low half (rules 17-19);
    Stud gives each pot whole to the best high (G6), Razz to the best ace-to-five low (G7),
    odd chips in rule 19's high or low order.
    """
    n = hand.seat_count
    contributed = hand.contributed
    live = [s for s in range(n) if not hand.folded[s]]
    received = [0] * n
    if len(live) == 1:
        received[live[0]] = sum(contributed)
        return [received[s] - contributed[s] for s in range(n)]
    scoring = hand.scoring
    high_order = sorted(live, key=lambda s: high_odd_chip_key(hand.cards[s]), reverse=True)
    low_order = sorted(live, key=lambda s: low_odd_chip_key(hand.cards[s]))
    by_seat = ODD_CHIP_BY_SEAT in quirks

    # Rule 11: a pot ends only at the total of a live player who is all-in (they put in
    # their whole starting stack), and at the top.
    all_in_totals = {contributed[s] for s in live if contributed[s] == hand.starting_stacks[s]}
    cuts = sorted({c for c in all_in_totals if c < max(contributed)} | {max(contributed)})

    def layers(players: set[int]) -> list[tuple[int, list[int]]]:
        out: list[tuple[int, list[int]]] = []
        previous = 0
        for level in cuts:
            amount = sum(min(c, level) - min(c, previous) for c in contributed)
            previous = level
            eligible = sorted(s for s in players if contributed[s] >= level)
            if MERGED_POTS in quirks and out and out[-1][1] == eligible:
                out[-1] = (out[-1][0] + amount, eligible)
            elif amount:
                out.append((amount, eligible))
        return out

    if scoring is not Scoring.HI_LO:
        value = {s: (hand.high_value(s) if scoring is Scoring.HIGH else hand.low_value(s) or 0) for s in live}
        order = high_order if scoring is Scoring.HIGH else low_order
        players = set(live)
        if MERGED_POTS in quirks:  # PokerKit kills the hands that can win nothing first
            players = {s for s in live if any(
                s in eligible and value[s] >= max(value[e] for e in eligible) for _, eligible in layers(set(live)))}
        for amount, eligible in layers(players):
            if eligible:
                best = max(value[s] for s in eligible)
                for s, c in _split(amount, [s for s in eligible if value[s] == best], order, by_seat=by_seat).items():
                    received[s] += c
        return [received[s] - contributed[s] for s in range(n)]

    high = {s: hand.high_value(s) for s in live}
    low = {s: hand.low_value(s) for s in live}
    players = set(live)
    any_low = any(low[s] is not None for s in live)
    if SIDE_POT_LOW_BUG in quirks or MERGED_POTS in quirks:
        # PokerKit kills the hands that can win nothing before it forms the final pots.
        def can_win(seat: int) -> bool:
            for _, eligible in layers(set(live)):
                if seat not in eligible:
                    continue
                if high[seat] >= max(high[s] for s in eligible):
                    return True
                lows = [v for s in eligible if (v := low[s]) is not None]
                mine = low[seat]
                if any_low and mine is not None and mine >= max(lows):
                    return True
            return False

        players = {s for s in live if can_win(s)}
    for amount, eligible in layers(players):
        if not eligible:
            continue
        best_high = max(high[s] for s in eligible)
        hw = [s for s in eligible if high[s] == best_high]
        lows = [v for s in eligible if (v := low[s]) is not None]
        lw = [s for s in eligible if lows and low[s] == max(lows)]
        if SIDE_POT_LOW_BUG in quirks and any_low and not lw:
            lw = list(eligible)  # PokerKit: the "low half" to everybody with no low
        if not lw or (set(lw) == set(hw) and HALF_BY_HALF not in quirks):
            shares = _split(amount, hw, high_order, by_seat=by_seat)
            for s, c in shares.items():
                received[s] += c
        else:
            low_half = amount // 2
            for s, c in _split(amount - low_half, hw, high_order, by_seat=by_seat).items():
                received[s] += c
            for s, c in _split(low_half, lw, low_order, by_seat=by_seat).items():
                received[s] += c
    return [received[s] - contributed[s] for s in range(n)]


def explain_payoffs(hand: Hand, pk: list[int]) -> tuple[str, ...] | None:
    """The smallest set of PokerKit quirks that turns our split into PokerKit's, or None."""
    quirks = QUIRKS if hand.game is Game.STUD8 else tuple(q for q in QUIRKS if q not in SPLIT_QUIRKS)
    for size in range(1, len(quirks) + 1):
        for combo in itertools.combinations(quirks, size):
            if split_model(hand, frozenset(combo)) == pk:
                return combo
    return None


# ---------------------------------------------------------------- one hand


def _pk_legal(hand: Hand) -> dict[str, int]:
    return {_PK_NAME[a]: hand.amount_of(a) for a in hand.legal_actions()}


Chooser = Callable[[Hand, list[Action]], Action]


def random_chooser(rng: random.Random) -> Chooser:
    """Random legal decisions, folds rarer than the rest so that most hands reach a showdown."""

    def choose(hand: Hand, legal: list[Action]) -> Action:
        weights = [0.25 if a is Action.FOLD else 1.0 for a in legal]
        return rng.choices(legal, weights)[0]

    return choose


def scripted_chooser(actions: Sequence[str]) -> Chooser:
    """The given decisions in order (each must be legal in both engines)."""
    queue = [Action.from_str(a) for a in actions]

    def choose(hand: Hand, legal: list[Action]) -> Action:
        action = queue.pop(0)
        if action not in legal:
            raise Mismatch(f"scripted {action.value} is not legal in both engines: {legal}")
        return action

    return choose


def play_one(rng: random.Random, tally: Tally, *, game: Game = Game.STUD8) -> None:
    """Play one random hand (2-7 players, tiny stacks common) in both engines."""
    n = rng.randint(2, 7)
    stakes = rng.choice([
        Stakes(), Stakes(ante=2, bring_in=3, small_bet=10, big_bet=20),
        Stakes(ante=0, bring_in=1, small_bet=2, big_bet=4), Stakes(ante=2, bring_in=2, small_bet=4, big_bet=8),
    ])
    stacks = [rng.choice([1, 2, 3, 4, 6, 9, 14, 20, 33, 60, 120]) if rng.random() < 0.6 else rng.randint(1, 150)
              for _ in range(n)]
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    cards = [deck[7 * s: 7 * s + 7] for s in range(n)]
    compare(stakes=stakes, stacks=stacks, cards=cards, choose=random_chooser(rng), tally=tally, game=game)


def compare(
    *, stakes: Stakes, stacks: list[int], cards: Sequence[Sequence[Card]], choose: Chooser, tally: Tally,
    game: Game = Game.STUD8,
) -> set[str]:
    """Play one hand in both engines in lockstep; return the known differences met."""
    n = len(stacks)
    ours = Hand(stakes=stakes, options=OPTIONS, names=[f"p{i}" for i in range(n)], stacks=stacks,
                dealer=ScriptedDealer(cards=cards), game=game)
    pk = PKHand(ante=stakes.ante, bring_in=stakes.bring_in, small_bet=stakes.small_bet, big_bet=stakes.big_bet,
                stacks=list(stacks), cards=[[str(c) for c in seat] for seat in cards], variant=game.value)
    tally.hands += 1
    where = f"hand {tally.hands} (stakes {stakes}, stacks {stacks})"
    if ours.bring_in_seat != pk.bring_in_seat:
        raise Mismatch(f"{where}: bring-in seat {ours.bring_in_seat} vs PokerKit {pk.bring_in_seat}")
    categories: set[str] = set()
    short_all_in_street: int | None = None
    while not ours.is_over:
        if pk.is_over:
            raise Mismatch(f"{where}: PokerKit ended the hand, ours waits for {ours.actor_name}")
        if ours.actor != pk.actor:
            opener = ours.first_actors.get(6)
            if ours.street == 7 and opener is not None and not ours.can_act(opener):
                categories.add(SEVENTH_OPENER)
                _stop(tally, categories)
                return categories
            raise Mismatch(f"{where}: street {ours.street} actor {ours.actor} vs PokerKit {pk.actor}")
        mine, theirs = _pk_legal(ours), pk.legal()
        tally.decisions += 1
        if mine != theirs:
            actor = ours.actor
            assert actor is not None
            same_but_cbr = {k: v for k, v in mine.items() if k != "cbr"} == {
                k: v for k, v in theirs.items() if k != "cbr"}
            if (set(mine) == {"bring-in"} and set(theirs) == {"bring-in", "cbr"}
                    and ours.stacks[actor] <= stakes.bring_in and theirs["cbr"] == mine["bring-in"]):
                categories.add(SHORT_BRING_IN)
            elif short_all_in_street == ours.street and same_but_cbr:
                categories.add(SHORT_ALL_IN)
                _stop(tally, categories)
                return categories
            else:
                raise Mismatch(f"{where}: street {ours.street} seat {actor} legal {mine} vs PokerKit {theirs}; "
                               f"actions so far {[a.value for a in ours.actions]}")
        legal = [a for a in ours.legal_actions() if _PK_NAME[a] in theirs]
        action = choose(ours, legal)
        bets_before = ours.full_bets
        ours.act(action)
        pk.act(_PK_NAME[action])
        if action in (Action.COMPLETE, Action.BET, Action.RAISE) and ours.full_bets == bets_before:
            short_all_in_street = ours.street if not ours.is_over else None
    if not pk.is_over:
        raise Mismatch(f"{where}: our hand is over, PokerKit waits for seat {pk.actor}")
    for street, seat in ours.first_actors.items():
        if pk.first_actor_by_street().get(street) != seat:
            raise Mismatch(f"{where}: first actor on street {street}: {seat} vs {pk.first_actor_by_street()}")
    our_payoffs = [end - start for end, start in zip(ours.stacks, stacks)]
    if split_model(ours, frozenset()) != our_payoffs:
        raise Mismatch(f"{where}: the split model disagrees with the engine: {split_model(ours, frozenset())} "
                       f"vs {our_payoffs}")
    pk_payoffs = pk.payoffs()
    if our_payoffs != pk_payoffs:
        explained = explain_payoffs(ours, pk_payoffs)
        if explained is None:
            raise Mismatch(f"{where}: payoffs {our_payoffs} vs PokerKit {pk_payoffs}; "
                           f"actions {[a.value for a in ours.actions]}, cards {[[str(c) for c in s] for s in cards]}")
        categories.update(explained)
    tally.categories.update(categories)
    if not categories:
        tally.agreed += 1
    return categories


def _stop(tally: Tally, categories: set[str]) -> None:
    tally.stopped_early += 1
    tally.categories.update(categories)


def run(*, hands: int, seed: int = 7, game: Game = Game.STUD8) -> Tally:
    rng = random.Random(seed)
    tally = Tally(game=game)
    for _ in range(hands):
        play_one(rng, tally, game=game)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--game", choices=[*(g.value for g in Game), "all"], default="stud8")
    args = parser.parse_args()
    games = list(Game) if args.game == "all" else [Game(args.game)]
    for game in games:
        started = time.perf_counter()
        tally = run(hands=args.hands, seed=args.seed, game=game)
        print(tally.report())
        print(f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
