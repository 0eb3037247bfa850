"""The house bot in each game (GAMES.md): legal and chip-conserving in Razz and Stud, blind to hidden
cards, and playing what wins there: in Razz low cards are good and pairs bad (G7), in Stud the high hand
alone (G6), taking G5's double bet with a strong hand."""

from __future__ import annotations

import logging
import random
from collections import Counter

import pytest

from bot.table.housebot import choose_action
from engine import Action, Card, Deck, DeckDealer, Hand, ScriptedDealer, Stakes, parse_cards
from engine.games import Game

SEEDS = range(60)


def _hand(game: Game, cards: dict[str, str], stacks: int = 100) -> Hand:
    names = list(cards)
    return Hand(stakes=Stakes(), names=names, stacks=[stacks] * len(names), game=game,
                dealer=ScriptedDealer(cards=[parse_cards(cards[n]) for n in names], names=names))


def _play(hand: Hand, *actions: str) -> Hand:
    for action in actions:
        hand.act(action)
    return hand


def decisions(hand: Hand) -> Counter[Action]:
    return Counter(choose_action(hand, rng=random.Random(seed)) for seed in SEEDS)


@pytest.mark.parametrize("game", [Game.RAZZ, Game.STUD])
def test_many_hands_in_each_game_are_legal_end_and_conserve_chips(game: Game,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.table.housebot")
    rng, bot_rng = random.Random(21), random.Random(5)
    kinds: Counter[Action] = Counter()
    showdowns = 0
    for _ in range(400):
        n = rng.randint(2, 8)
        stacks = [rng.choice((rng.randint(1, 12), rng.randint(13, 60), rng.randint(61, 400))) for _ in range(n)]
        hand = Hand(stakes=Stakes(), names=[f"bot{i}" for i in range(n)], stacks=stacks, game=game,
                    dealer=DeckDealer(Deck.shuffled(rng=rng)))
        while not hand.is_over:
            legal = hand.legal_actions()
            action = choose_action(hand, rng=bot_rng)
            assert action in legal, (action, legal)
            if Action.CHECK in legal:
                assert action is not Action.FOLD
            kinds[action] += 1
            hand.act(action)
        assert sum(hand.stacks) == sum(stacks) and min(hand.stacks) >= 0
        showdowns += len(hand.live_seats) > 1
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    assert showdowns > 60
    assert 0.1 < kinds[Action.FOLD] / sum(kinds.values()) < 0.6
    if game is Game.STUD:  # G5: a strong hand takes the double bet where a pair shows
        assert kinds[Action.BET_BIG] + kinds[Action.RAISE_BIG] > 0
    else:
        assert kinds[Action.BET_BIG] + kinds[Action.RAISE_BIG] == 0


def _recorded(seed: int, game: Game) -> tuple[Hand, list[Card]]:
    rng = random.Random(seed)
    n = rng.randint(2, 8)
    stacks = [rng.choice((rng.randint(5, 30), rng.randint(60, 300))) for _ in range(n)]
    dealer = DeckDealer(Deck.shuffled(rng=rng))
    hand = Hand(stakes=Stakes(), names=[f"p{i}" for i in range(n)], stacks=stacks, dealer=dealer, game=game)
    while not hand.is_over:
        hand.act(choose_action(hand, rng=rng))
    return hand, list(dealer.deck.remaining)


@pytest.mark.parametrize("game", [Game.RAZZ, Game.STUD])
def test_decisions_never_depend_on_opponents_down_cards(game: Game) -> None:
    """As test_housebot.py's test for Stud Hi-Lo: swap every opponent's down cards for cards the observer
    cannot see; the observer decides the same, drawing the same random numbers, at each decision."""
    compared = swapped = 0
    for seed in range(60):
        original, undealt = _recorded(seed, game)
        n = original.seat_count
        for observer in range(n):
            shuffle = random.Random(seed * 100 + observer)
            hidden = [(s, i) for s in range(n) if s != observer for i in (0, 1, 6) if i < len(original.cards[s])]
            pool = [original.cards[s][i] for s, i in hidden] + undealt
            shuffle.shuffle(pool)
            other = [list(cards) for cards in original.cards]
            for (s, i), card in zip(hidden, pool, strict=False):
                other[s][i] = card
            swapped += other != original.cards
            a, b = (Hand(stakes=original.stakes, names=original.names, stacks=original.starting_stacks, game=game,
                         dealer=ScriptedDealer(cards=cards)) for cards in ([list(c) for c in original.cards], other))
            for step, action in enumerate(original.actions):
                assert a.actor == b.actor
                if a.actor == observer:
                    rng_a, rng_b = random.Random(step), random.Random(step)
                    assert choose_action(a, rng=rng_a) is choose_action(b, rng=rng_b), (seed, observer, step)
                    assert rng_a.random() == rng_b.random()
                    compared += 1
                a.act(action)
                b.act(action)
    assert compared > 300 and swapped > 200


# ------------------------------------------------------------------ Razz: low cards good, pairs bad


def test_razz_bring_in_is_the_king_and_junk_only_posts_it() -> None:
    hand = _hand(Game.RAZZ, {"a": "Kd Qs Jc", "b": "Ah 2h 3h"})
    assert hand.actor_name == "a"  # G2: the highest door brings in
    assert decisions(hand) == {Action.BRING_IN: len(SEEDS)}


@pytest.mark.parametrize("cards", ["Ks Qd 9c", "Kh 2d 2c", "Jc Td 9h"])
def test_razz_folds_high_cards_and_pairs_facing_a_completion(cards: str) -> None:
    hand = _hand(Game.RAZZ, {"a": "Qs Jd Kc", "b": "5h 3c 2s", "c": cards})
    _play(hand, "bring-in", "complete")  # a's king brings in, b completes
    assert hand.actor_name == "c"
    assert decisions(hand) == {Action.FOLD: len(SEEDS)}


@pytest.mark.parametrize("cards", ["Ad 2d 3s", "4c 2h Ah", "5c 3d 2h"])
def test_razz_plays_three_small_cards_and_completes_them_over_the_bring_in(cards: str) -> None:
    hand = _hand(Game.RAZZ, {"a": "Qs Jd Kc", "b": cards})
    _play(hand, "bring-in")
    chosen = decisions(hand)
    assert Action.FOLD not in chosen and chosen[Action.COMPLETE] == len(SEEDS)


def test_stud_hi_lo_premium_three_low_cards_are_ordinary_in_stud() -> None:
    """A-2-3 is premium in Stud Hi-Lo and in Razz; in Stud (high only) it is three small cards."""
    cards = {"a": "Qs Jd 3c", "b": "9h 8c 7s", "c": "Ad 2d 4s"}
    stud8 = _play(_hand(Game.STUD8, cards), "bring-in", "complete")
    stud = _play(_hand(Game.STUD, cards), "bring-in", "complete")
    assert (stud8.actor_name, stud.actor_name) == ("c", "c")
    assert decisions(stud8)[Action.FOLD] == 0
    assert decisions(stud)[Action.FOLD] > len(SEEDS) // 2


def test_razz_bets_a_made_six_low_and_folds_a_paired_hand_to_a_lower_board() -> None:
    hand = _hand(Game.RAZZ, {"a": "As 2d 4h 6c 3s 9d Td", "b": "Kd Qh Kc Qs Jd 7h 8s"})
    _play(hand, "bring-in", "complete", "call")  # b's king brings in, a completes
    _play(hand, "bet", "call")  # fourth street: a's A-4 board acts first
    assert (hand.street, hand.actor_name) == (5, "a")
    assert decisions(hand) == {Action.BET: len(SEEDS)}  # 6-4-3-2-A made
    _play(hand, "bet")
    assert hand.actor_name == "b" and decisions(hand) == {Action.FOLD: len(SEEDS)}  # K-Q-K-Q: two pairs


# ------------------------------------------------------------------ Stud: the high hand, G5's double bet


def test_stud_rolled_up_trips_take_the_double_bet_with_a_pair_showing() -> None:
    hand = _hand(Game.STUD, {"a": "5s 5d 5h 5c 9d", "b": "Qd Jh 2c 3d 4h"})
    _play(hand, "bring-in", "call")  # b's 2c brings in (G1), a calls
    assert hand.street == 4 and hand.double_bet_open and hand.actor_name == "a"  # a shows 5h 5c
    assert decisions(hand) == {Action.BET_BIG: len(SEEDS)}


def test_stud_junk_does_not_take_the_double_bet() -> None:
    hand = _hand(Game.STUD, {"a": "Qd Jh 3c 9d 4h", "b": "7s 2d 6h 6c 8d"})
    _play(hand, "bring-in", "call")  # a's 3c brings in
    assert hand.street == 4 and hand.double_bet_open and hand.actor_name == "b"  # b shows 6h 6c
    chosen = decisions(hand)
    assert chosen[Action.BET_BIG] == 0 and chosen[Action.FOLD] == 0


def _station(hand: Hand, rng: random.Random) -> Action:
    legal = hand.legal_actions()
    return next(a for a in (Action.CHECK, Action.CALL, Action.BRING_IN) if a in legal)


@pytest.mark.parametrize("game", [Game.RAZZ, Game.STUD])
def test_house_bots_beat_a_calling_station_and_a_random_player_in_each_game(game: Game) -> None:
    """As test_housebot.py's duplicate match (every deck played in four seat rotations), in Razz and Stud."""
    lineup = ["house", "station", "house", "random"]
    rng = random.Random(99)
    won: Counter[str] = Counter()
    seats: Counter[str] = Counter()
    for _ in range(120):
        cards = Deck.shuffled(rng=rng).remaining
        for rotation in range(4):
            order = lineup[rotation:] + lineup[:rotation]
            hand = Hand(stakes=Stakes(), names=[f"{k}{i}" for i, k in enumerate(order)], stacks=[200] * 4,
                        game=game, dealer=DeckDealer(Deck.from_cards(cards)))
            while not hand.is_over:
                assert hand.actor is not None
                kind = order[hand.actor]
                hand.act(choose_action(hand, rng=rng) if kind == "house" else _station(hand, rng) if kind == "station"
                         else rng.choice(hand.legal_actions()))
            for seat, kind in enumerate(order):
                won[kind] += hand.stacks[seat] - 200
                seats[kind] += 1
    per_hand = {kind: won[kind] / seats[kind] for kind in won}
    print(f"\n{game.value}: chips won per hand per seat: " + ", ".join(f"{k} {v:+.2f}" for k, v in per_hand.items()))
    assert per_hand["house"] > 0.3
    assert per_hand["house"] > max(per_hand["station"], per_hand["random"]) + 0.5
