"""Hands per second: this engine against PokerKit 0.7.7, the same hands in the same run, per game.

Each of the three games is measured in turn (Stud Hi-Lo against PokerKit's
``FixedLimitSevenCardStudHighLowSplitEightOrBetter``, Stud against ``FixedLimitSevenCardStud``
with ``open_pair_double`` off, as PokerKit has no open-pair big bet, Razz against ``FixedLimitRazz``).

The hands are seeded random 6-handed hands with deep stacks: folds are rare and
nearly every hand reaches the showdown. Each hand is first played by this engine
with a seeded policy, which fixes its cards and decisions; then both engines
replay exactly those cards and decisions, timed separately (best of several
repetitions, since these machines are noisy). PokerKit is driven the lean way:
its state methods directly, with the cards dealt by hand (its stud burns a card
before each street, so the unknown card ``??`` is burned to keep our cards).

The two loops are matched: this engine's is one ``act`` a decision (its dealer deals the
cards inside ``act``), PokerKit's one state method a decision and one a card or burn, with a
dispatch on our action. Measured apart, the loops' own work is ~3 us a hand on our side
(~1% of a hand) and ~20 us on PokerKit's (~0.2% of its ~12 ms), so the ratios are the engines'.

``python -m bench`` prints these figures, then the evaluators' figures; the last
line is ``engine/pokerkit hands per second: <ratio>x`` (Stud Hi-Lo's), followed by each
game's ratio.
"""

from __future__ import annotations

import argparse
import random
import time
import warnings
from dataclasses import dataclass

from engine import Action, Card, Hand, Options, ScriptedDealer, Stakes
from engine.cards import ALL_CARDS
from engine.games import Game

from .policy import Passive

PLAYERS = 6
STACK = 1000
STAKES = Stakes()
OPTIONS = Options(open_pair_double=False)  # PokerKit's Stud has no open-pair big bet (GAMES.md G5)
PK_CLASSES = {
    Game.STUD8: "FixedLimitSevenCardStudHighLowSplitEightOrBetter",
    Game.STUD: "FixedLimitSevenCardStud",
    Game.RAZZ: "FixedLimitRazz",
}


@dataclass(frozen=True)
class Script:
    cards: tuple[tuple[Card, ...], ...]
    actions: tuple[Action, ...]


POLICY = Passive(bring_in_complete=0.2, complete=0.25, bet=0.3, raise_=0.12, fold=0.015)


def make_scripts(*, hands: int, seed: int, game: Game = Game.STUD8) -> list[Script]:
    rng = random.Random(seed)
    scripts = []
    for _ in range(hands):
        deck = list(ALL_CARDS)
        rng.shuffle(deck)
        cards = tuple(tuple(deck[7 * s: 7 * s + 7]) for s in range(PLAYERS))
        hand = _engine_hand(cards, game)
        while not hand.is_over:
            hand.act(POLICY.choose(hand, rng))
        scripts.append(Script(cards=cards, actions=tuple(hand.actions)))
    return scripts


def _engine_hand(cards: tuple[tuple[Card, ...], ...], game: Game) -> Hand:
    return Hand(stakes=STAKES, options=OPTIONS, names=[f"p{i}" for i in range(PLAYERS)], stacks=[STACK] * PLAYERS,
                dealer=ScriptedDealer(cards=cards), game=game)


def play_engine(scripts: list[Script], game: Game = Game.STUD8) -> None:
    for script in scripts:
        hand = _engine_hand(script.cards, game)
        act = hand.act
        for action in script.actions:
            act(action)
        assert hand.is_over


def play_pokerkit(scripts: list[Script], game: Game = Game.STUD8) -> None:
    import pokerkit
    from pokerkit import Automation, Mode
    from pokerkit import Card as PKCard

    game_class = getattr(pokerkit, PK_CLASSES[game])
    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
    )
    parsed = {str(c): next(iter(PKCard.parse(str(c)))) for c in ALL_CARDS}
    burn = PKCard.UNKNOWN
    for script in scripts:
        state = game_class.create_state(
            automations, True, STAKES.ante, STAKES.bring_in, STAKES.small_bet, STAKES.big_bet,
            [STACK] * PLAYERS, PLAYERS, mode=Mode.TOURNAMENT,
        )
        cards = [[parsed[str(c)] for c in seat] for seat in script.cards]
        dealt = [0] * PLAYERS
        actions = iter(script.actions)
        while state.status:
            if state.actor_index is None:
                if state.card_burning_status:
                    state.burn_card(burn)
                else:
                    seat = state.hole_dealee_index
                    assert seat is not None
                    state.deal_hole((cards[seat][dealt[seat]],), seat)
                    dealt[seat] += 1
                continue
            action = next(actions)
            if action is Action.BRING_IN:
                state.post_bring_in()
            elif action is Action.FOLD:
                state.fold()
            elif action in (Action.CHECK, Action.CALL):
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to()


def best_rate(func: object, scripts: list[Script], *, repeat: int, game: Game = Game.STUD8) -> float:
    assert callable(func)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        func(scripts, game)
        best = min(best, time.perf_counter() - started)
    return len(scripts) / best


def main() -> None:
    parser = argparse.ArgumentParser(description="engine vs PokerKit: hands and evaluations per second")
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=[*(g.value for g in Game), "all"], default="all")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    games = list(Game) if args.game == "all" else [Game(args.game)]
    ratios: dict[Game, float] = {}
    print(f"{args.hands} seeded 6-handed hands a game; best of 7 (engine), 2 (PokerKit)")
    for game in games:
        scripts = make_scripts(hands=args.hands, seed=args.seed, game=game)
        actions = sum(len(s.actions) for s in scripts) / len(scripts)
        engine_rate = best_rate(play_engine, scripts, repeat=7, game=game)
        pokerkit_rate = best_rate(play_pokerkit, scripts, repeat=2, game=game)
        ratios[game] = engine_rate / pokerkit_rate
        print(f"hands/s  {game.label:<10}  engine {engine_rate:,.0f}  pokerkit {pokerkit_rate:,.1f}"
              f"  ({ratios[game]:.1f}x; {actions:.1f} decisions a hand)")
    from bench import evaluators

    evaluators.run()
    first = ratios[games[0]]
    print(f"engine/pokerkit hands per second: {first:.1f}x"
          + (" (" + ", ".join(f"{g.value} {r:.1f}x" for g, r in ratios.items()) + ")" if len(ratios) > 1 else ""))


if __name__ == "__main__":
    main()
