"""engine.equity in Stud (G6: the best high takes each pot) and Razz (G7: the best ace-to-five low takes
each pot), checked against brute force through the engine's own showdown (test_equity.py's walk, which
settles every run-out with settle_showdown and so follows the hand's game), and the command line
reading a file's game (G9)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_equity import aggressive, assert_close, brute_force

from engine import Deck, DeckDealer, Hand, ScriptedDealer, Stakes, parse_cards
from engine.equity import all_in_equity, equity_of_spot, run, spot_at
from engine.equity_deal import count_exact, count_heads_up, count_sampled
from engine.games import Game, Scoring
from engine.handfile import hand_file_of

GAMES = [Game.STUD, Game.RAZZ]


def game_hand(cards: dict[str, str], *, game: Game, stacks: dict[str, int]) -> Hand:
    names = list(cards)
    return Hand(stakes=Stakes(), names=names, stacks=[stacks.get(n, 100) for n in names], game=game,
                dealer=ScriptedDealer(cards=[parse_cards(cards[n]) for n in names], names=names))


HEADS_UP = {"ann": "Ah 2h 3h Ks 9d 8c 4c", "bob": "Kc Kd Qs Qh 7d 2s Jc"}


@pytest.mark.parametrize("game", GAMES)
def test_heads_up_sixth_street_equals_brute_force(game: Game) -> None:
    hand = aggressive(game_hand(HEADS_UP, game=game, stacks={"ann": 12, "bob": 50}))
    table = all_in_equity(hand)
    assert 6 in table
    result = table[6]
    equity, scoop, deals = brute_force(hand, 6)
    assert result.exact and result.samples == deals == 40 * 39
    assert_close(dict(result.equity), equity)
    assert_close(dict(result.scoop), scoop)
    # Each pot is taken whole (or split by a tie): a player's equity is their chance of the pot.
    assert abs(sum(result.equity.values()) - 1) < 1e-12


def test_the_game_changes_the_equity() -> None:
    # ann's A-2-3 and bob's kings and queens: bob leads in Stud, ann in Razz; in Stud Hi-Lo ann has low chances too.
    equities = {}
    for game in Game:
        hand = aggressive(game_hand(HEADS_UP, game=game, stacks={"ann": 12, "bob": 50}))
        equities[game] = all_in_equity(hand)[6].equity["ann"]
    assert equities[Game.RAZZ] > 0.5 > equities[Game.STUD]
    assert len({round(v, 9) for v in equities.values()}) == 3


@pytest.mark.parametrize("game", GAMES)
def test_heads_up_fifth_street_counting_equals_walking_every_deal(game: Game) -> None:
    hand = aggressive(game_hand(HEADS_UP, game=game, stacks={"ann": 12, "bob": 50}))
    spot = spot_at(hand, street=5)
    assert spot.scoring is hand.scoring
    assert count_heads_up(spot).weights == count_exact(spot).weights


def test_stud_three_way_side_pot_equals_brute_force() -> None:
    # (Razz's three-way walk is the tied lows' below: each walk takes seconds.)
    cards = {"ann": "Ah 2h 3c 4d 9s Kh Qc", "bob": "5d 6d 7s 8s 2c 2d Jh", "cat": "Kc Ks 9h Th 3d 7c As"}
    hand = aggressive(game_hand(cards, game=Game.STUD, stacks={"ann": 8, "bob": 25, "cat": 100}))
    table = all_in_equity(hand)
    assert 6 in table and len(spot_at(hand, street=6).pots) == 2
    equity, scoop, deals = brute_force(hand, 6)
    assert table[6].exact and table[6].samples == deals
    assert_close(dict(table[6].equity), equity)
    assert_close(dict(table[6].scoop), scoop)


@pytest.mark.parametrize("game", GAMES)
def test_random_all_ins_equal_brute_force_on_sixth_street(game: Game) -> None:
    rng = random.Random(31 if game is Game.RAZZ else 37)
    checked = 0
    while checked < 3:
        players = rng.choice((2, 3))
        names = ["ann", "bob", "cat"][:players]
        hand = aggressive(Hand(stakes=Stakes(), names=names, stacks=[rng.randrange(3, 40) for _ in names],
                               dealer=DeckDealer(Deck.shuffled(rng=rng)), game=game))
        table = all_in_equity(hand)
        if 6 not in table:
            continue
        equity, scoop, deals = brute_force(hand, 6)
        assert table[6].exact and table[6].samples == deals
        assert_close(dict(table[6].equity), equity)
        assert_close(dict(table[6].scoop), scoop)
        checked += 1


def test_razz_tied_lows_split_with_rule_19s_odd_chip() -> None:
    # ann and bob both hold A-2-3-4 of different suits; cat is drawing dead to pairs.
    hand = aggressive(game_hand({"ann": "Ac 2c 3c 4c 9d Td Jd", "bob": "Ad 2d 3d 4d 9s Ts Js",
                                 "cat": "Kc Ks Qc Qs Kh Qh Jh"}, game=Game.RAZZ,
                                stacks={"ann": 20, "bob": 20, "cat": 20}))
    table = all_in_equity(hand)
    assert 6 in table and len(spot_at(hand, street=6).pots) == 1
    equity, scoop, deals = brute_force(hand, 6)
    assert table[6].exact and table[6].samples == deals
    assert_close(dict(table[6].equity), equity)
    assert_close(dict(table[6].scoop), scoop)
    assert table[6].equity["ann"] > 0.2 and table[6].equity["bob"] > 0.2


@pytest.mark.parametrize("game", GAMES)
def test_sampled_within_three_standard_errors_of_exact(game: Game) -> None:
    cards = {"ann": "Ah 2h Kc Ks 9d 8c 4c", "bob": "3c 5d 6h Qs 7s Jd 2s"}  # both can win either game
    hand = aggressive(game_hand(cards, game=game, stacks={"ann": 12, "bob": 50}))
    spot = spot_at(hand, street=5)
    exact = equity_of_spot(spot, street=5)
    sampled = equity_of_spot(spot, street=5, budget=0, samples=4000)
    assert 0.05 < exact.equity["ann"] < 0.95
    assert exact.exact and not sampled.exact and sampled.std_error > 0
    for name, value in exact.equity.items():
        assert abs(sampled.equity[name] - value) <= 3 * sampled.std_error + 1e-9
    counted = count_sampled(spot, samples=50, rng=random.Random(1))
    if game is Game.RAZZ:
        assert all(o[0] == 0 and o[2] == -1 for outcomes in counted.weights for o in outcomes)
    else:
        assert all(o[1] is None for outcomes in counted.weights for o in outcomes)


@pytest.mark.parametrize("game", GAMES)
def test_cli_reads_the_files_game(tmp_path: Path, game: Game) -> None:
    hand = aggressive(game_hand(HEADS_UP, game=game, stacks={"ann": 12, "bob": 50}))
    path = tmp_path / "hand.json"
    path.write_text(hand_file_of(hand).to_json())
    assert json.loads(path.read_text())["game"] == game.value
    status, out = run([str(path), "--street", "6"])
    assert status == 0, out
    data = json.loads(out)
    assert_close(data["equity"], brute_force(hand, 6)[0])
    assert {Game.STUD: Scoring.HIGH, Game.RAZZ: Scoring.LOW}[game] is hand.scoring
