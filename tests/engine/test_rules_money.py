"""Rules 11-20 of RULES.md: all-ins, the half-bet rule, pots, showdown order and the split."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import legal, make_hand, play, stacks

from engine import (
    Deck,
    DeckDealer,
    Hand,
    HandFile,
    IllegalActionError,
    Options,
    ShortAllIn,
    Stakes,
    replay_hand,
    result_of,
)
from engine.events import HandShown, UncalledReturned

VECTORS = Path(__file__).parents[1] / "vectors"

# ------------------------------------------------------------------ rule 11


def test_rule_11_all_in_wins_only_the_pots_it_contributed_to() -> None:
    # HAND_FORMAT.md's example: cat all-in on fourth street, a side pot for ann and bob.
    hand = replay_hand(HandFile.from_json((VECTORS / "hand_format_example.json").read_text()))
    result = result_of(hand)
    assert result["pots"] == [
        {"amount": 33, "eligible": ["ann", "bob", "cat"], "high": ["cat"], "low": ["ann"],
         "shares": {"ann": 16, "cat": 17}},
        {"amount": 20, "eligible": ["ann", "bob"], "high": ["bob"], "low": ["ann"],
         "shares": {"ann": 10, "bob": 10}},
    ]
    assert result["payouts"] == {"ann": 26, "bob": 10, "cat": 17}
    assert result["stacks"] == {"ann": 105, "bob": 89, "cat": 17}
    assert result["first_to_act"] == {"3": "bob", "4": "ann", "5": "ann", "6": "bob", "7": "bob"}


def test_rule_11_no_all_in_one_pot_whoever_folded() -> None:
    # RULES.md rule 11, first example: four players ante 1; two fold on third street; the
    # other two put in 38 each in all and show down: one pot of 78, not 4 and a side pot of 74.
    cards = {"ann": "9d 8d 2c Kh Qh Js 7s", "bob": "7c 7d Qc", "cat": "6h 6d Jc",
             "dan": "Ac 2d 3h 4s 5c Td Jh"}
    hand = make_hand(cards)
    assert hand.actor_name == "ann"
    play(hand, "bring-in", "fold", "fold", "call")  # ann 2, dan calls 2; the round ends
    play(hand, "bet", "call", "bet", "call", "bet", "call", "bet", "call")  # 5 + 10 + 10 + 10
    assert hand.is_over and hand.contributed == [38, 1, 1, 38]
    assert [(r.amount, r.eligible) for r in hand.pot_results] == [(78, (0, 3))]
    assert result_of(hand)["pots"] == [
        {"amount": 78, "eligible": ["ann", "dan"], "high": ["dan"], "low": ["dan"], "shares": {"dan": 78}},
    ]
    assert stacks(hand) == {"ann": 62, "bob": 99, "cat": 99, "dan": 140}


def test_rule_11_dead_money_is_divided_once_with_the_pot() -> None:
    # Rule 11, second example: five players ante 1 (bring-in 1, bets 5/10); the bring-in
    # player folds to a completion, two others fold; the last two put in 41 each: one pot
    # of 86, split 43/43 between a high and a different low. (Layers cut at every total,
    # 5 + 3 + 78, would pay 3 + 2 + 39 = 44 to the high and 42 to the low.)
    stakes = Stakes(ante=1, bring_in=1, small_bet=5, big_bet=10)
    cards = {"ann": "9d 8d 2c", "bob": "Kc Kd Ks Qs Qd 9c Th", "cat": "7c 7d Qc", "dan": "6h 6d Jc",
             "eve": "Ac 2d 3h 4s 5c Td Jh"}
    hand = make_hand(cards, stakes=stakes)
    assert hand.actor_name == "ann"
    play(hand, "bring-in", "complete", "fold", "fold", "call", "fold")
    play(hand, "bet", "call", "bet", "call", "bet", "call", "bet", "call")
    assert hand.is_over and hand.contributed == [2, 41, 1, 1, 41]
    assert [(r.amount, r.eligible, r.high, r.low, dict(r.shares)) for r in hand.pot_results] == [
        (86, (1, 4), (1,), (4,), {1: 43, 4: 43}),
    ]
    assert stacks(hand) == {"ann": 98, "bob": 102, "cat": 99, "dan": 99, "eve": 102}


def test_rule_11_side_pots_only_at_all_in_totals() -> None:
    # Two all-ins at different totals (cat 6 on third street, dan 11 on fourth) and dead
    # money from two folds: pots are cut at 6, 11 and the top (21), never at ann's 3.
    cards = {"ann": "9d 8d 2c Kh Qh 3d 7s", "bob": "Kc Kd Ks Qs Qd 9c Th", "cat": "Ac 2d 3h 4s 5c Td Jh",
             "dan": "Jc Jd Js 7h 8s 6c 6d", "eve": "Tc Ts 4c 9h 3c 8c 2h"}
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 6, "dan": 11, "eve": 100})
    play(hand, "bring-in", "complete", "call", "call", "call", "fold")  # cat calls all-in: 1 + 5
    play(hand, "bet", "call", "call")  # dan calls all-in: 1 + 5 + 5
    play(hand, "bet", "call", "bet", "fold")  # eve folds on sixth; bob's 10 goes back uncalled
    assert hand.is_over and hand.contributed == [3, 21, 6, 11, 21]
    assert result_of(hand)["pots"] == [
        {"amount": 27, "eligible": ["bob", "cat", "dan"], "high": ["bob"], "low": ["cat"],
         "shares": {"bob": 14, "cat": 13}},
        {"amount": 15, "eligible": ["bob", "dan"], "high": ["bob"], "low": [], "shares": {"bob": 15}},
        {"amount": 20, "eligible": ["bob"], "high": ["bob"], "low": [], "shares": {"bob": 20}},
    ]
    assert stacks(hand) == {"ann": 97, "bob": 128, "cat": 13, "dan": 0, "eve": 79}


def test_rule_11_short_call_is_all_in() -> None:
    hand = make_hand({"ann": "Ac Ad 9h", "bob": "Kc Kd 2c", "cat": "Qc Qd Ts"}, stacks={"ann": 4, "bob": 50, "cat": 50})
    play(hand, "bring-in", "complete", "call")  # ann has 3 behind and calls all-in
    assert hand.is_all_in(0) and hand.contributed[0] == 4


# ------------------------------------------------------------------ rule 12

FOURTH = {"ann": "Ac Ad Kh Ks 2s 3s 4s", "bob": "Qc Qd 2c 7d 8s 9s Tc", "cat": "Jc Jd 9h 8h 6c 5c 4c"}


def _to_fourth(cat_stack: int, options: Options | None = None) -> Hand:
    hand = make_hand(FOURTH, stacks={"ann": 100, "bob": 100, "cat": cat_stack}, options=options)
    play(hand, "bring-in", "call", "call")  # everyone has 3 in
    assert hand.street == 4 and hand.actor_name == "ann"
    return hand


def test_rule_12_short_all_in_does_not_reopen() -> None:
    hand = play(_to_fourth(3 + 7), "bet", "call")
    assert legal(hand) == ["call", "fold", "raise"] and hand.amount_of("raise") == 7
    hand.raise_bet()  # cat all-in to 7: adds 2, less than half of 5
    assert hand.current_bet == 7 and hand.full_bets == 1
    assert hand.actor_name == "ann" and legal(hand) == ["call", "fold"]
    with pytest.raises(IllegalActionError, match="did not reopen"):
        hand.raise_bet()
    play(hand, "call")
    assert legal(hand) == ["call", "fold"]


def test_rule_12_half_a_bet_or_more_reopens_and_counts() -> None:
    hand = play(_to_fourth(3 + 8), "bet", "call", "raise")  # cat all-in to 8: adds 3 >= 2.5
    assert hand.full_bets == 2
    assert legal(hand) == ["call", "fold", "raise"]
    assert hand.total_after("raise") == 13  # the current bet plus a full bet


def test_rule_12_full_bet_option_only_a_full_raise_counts() -> None:
    hand = play(_to_fourth(3 + 8, Options(short_all_in=ShortAllIn.FULL)), "bet", "call", "raise")
    assert hand.full_bets == 1 and legal(hand) == ["call", "fold"]


def test_rule_12_raise_over_an_all_in_goes_to_current_bet_plus_a_full_bet() -> None:
    # RRoP: a $15 all-in on a $20 street is raised to $35.
    stakes = Stakes(ante=1, bring_in=5, small_bet=10, big_bet=20)
    cards = {"ann": "Ac Ad 2h 3h 4h", "bob": "Qc Qd 5c 6d 7s", "cat": "Jc Jd 9h 9s 9d"}
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 21}, stakes=stakes)
    play(hand, "bring-in", "call", "call", "check", "check", "check")
    assert hand.street == 5 and hand.actor_name == "cat"
    play(hand, "bet")  # all-in for 15
    assert hand.is_all_in(2) and hand.full_bets == 1
    assert legal(hand) == ["call", "fold", "raise"]
    assert hand.total_after("raise") == 35


@pytest.mark.parametrize("mode", [ShortAllIn.HALF, ShortAllIn.FULL])
def test_rule_12_facing_a_short_all_in_bet_a_player_may_complete_it(mode: ShortAllIn) -> None:
    cards = {"ann": "Ac Ad 2h 3h", "bob": "Qc Qd 5c 6d", "cat": "Jc Jd 9h 9s"}
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 5}, options=Options(short_all_in=mode))
    play(hand, "bring-in", "call", "call")
    assert hand.actor_name == "cat"
    play(hand, "bet")  # all-in for 2 of 5
    assert hand.full_bets == 0
    assert legal(hand) == ["call", "complete", "fold"]
    assert hand.total_after("complete") == 5
    play(hand, "complete")
    assert hand.full_bets == 1 and legal(hand) == ["call", "fold", "raise"] and hand.total_after("raise") == 10


def test_rule_12_an_all_in_bet_is_measured_by_its_total() -> None:
    cards = {"ann": "Ac Ad 2h 3h", "bob": "Qc Qd 5c 6d", "cat": "Jc Jd 9h 9s"}
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 6})
    play(hand, "bring-in", "call", "call", "bet")  # cat all-in for 3: half a bet or more
    assert hand.full_bets == 1
    assert legal(hand) == ["call", "fold", "raise"] and hand.total_after("raise") == 8


def test_rule_12_short_all_in_does_not_count_toward_the_cap() -> None:
    cards = {"ann": "Ac Ad 9h", "bob": "Kc Kd 2c", "cat": "Qc Qd Ts", "dan": "Jc Jd 8s"}
    hand = make_hand(cards, stacks={"ann": 100, "bob": 18, "cat": 100, "dan": 100})
    play(hand, "bring-in", "complete", "raise", "raise")  # bob in, cat 5, dan 10, ann 15
    assert hand.actor_name == "bob" and hand.full_bets == 3
    play(hand, "raise")  # bob all-in to 17: adds 2, does not count
    assert hand.full_bets == 3 and hand.current_bet == 17
    assert hand.actor_name == "cat" and legal(hand) == ["call", "fold", "raise"]
    play(hand, "raise")  # the fourth bet, to 22
    assert hand.current_bet == 22 and legal(hand) == ["call", "fold"]


def test_rule_12_each_short_all_in_is_judged_on_its_own() -> None:
    cards = {"ann": "Ac Ad Kh Ks", "bob": "Qc Qd 2c 7d", "cat": "Jc Jd 9h 8h", "dan": "Tc Td 8d 6c"}
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 10, "dan": 12})
    play(hand, "bring-in", "call", "call", "call")
    assert hand.street == 4 and hand.actor_name == "ann"
    play(hand, "bet", "call", "raise", "raise")  # cat all-in to 7, dan all-in to 9: 2 + 2
    assert hand.current_bet == 9 and hand.full_bets == 1
    assert hand.actor_name == "ann" and legal(hand) == ["call", "fold"]


def test_rule_12_short_all_in_complete_on_third_street() -> None:
    three = {"ann": "Ac Ad 9h", "bob": "Kc Kd 2c", "cat": "Qc Qd Ts"}
    full = Options(short_all_in=ShortAllIn.FULL)
    hand = make_hand(three, stacks={"ann": 100, "bob": 100, "cat": 5}, options=full)
    play(hand, "bring-in", "complete")  # cat all-in to 4 of 5: not a full complete
    assert hand.full_bets == 0 and legal(hand) == ["call", "complete", "fold"]
    hand = make_hand(three, stacks={"ann": 100, "bob": 100, "cat": 5})
    play(hand, "bring-in", "complete")  # half mode: 4 >= 2.5 counts
    assert hand.full_bets == 1 and legal(hand) == ["call", "fold", "raise"] and hand.total_after("raise") == 9


# ------------------------------------------------------------------ rule 13

HEADS_UP = {"ann": "Ac Ad 2c 3d 4h 5s 6c", "bob": "Kc Kd Ks Qs Qd Qh 9c"}


def test_rule_13_cards_dealt_out_without_betting() -> None:
    hand = make_hand(HEADS_UP, stacks={"ann": 3, "bob": 100})
    assert legal(hand) == ["bring-in"]
    play(hand, "bring-in")
    assert legal(hand) == ["call", "fold"]  # the only opponent is all-in: no completing
    play(hand, "call")
    assert hand.is_over and hand.first_actors == {3: 0}
    assert [len(c) for c in hand.cards] == [7, 7]
    # bob's kings full take the high half, ann's 6-high straight has a wheel low.
    assert stacks(hand) == {"ann": 3, "bob": 100}


def test_rule_13_no_raise_when_no_other_player_could_put_in_more() -> None:
    hand = make_hand(HEADS_UP, stacks={"ann": 9, "bob": 100})
    play(hand, "bring-in", "call")
    assert hand.actor_name == "bob"
    play(hand, "bet")
    assert legal(hand) == ["call", "fold", "raise"]
    play(hand, "raise")  # ann all-in to 6
    assert hand.is_all_in(0)
    assert legal(hand) == ["call", "fold"]
    play(hand, "call")
    assert hand.is_over


def test_rule_13_uncalled_chips_go_back_and_are_in_no_pot() -> None:
    hand = make_hand(HEADS_UP)
    play(hand, "bring-in", "call", "bet", "fold")
    returned = [e for e in hand.events if isinstance(e, UncalledReturned)]
    assert [(e.seat, e.amount) for e in returned] == [(1, 5)]
    result = result_of(hand)
    assert result["pots"] == [{"amount": 6, "eligible": ["bob"], "high": ["bob"], "low": [], "shares": {"bob": 6}}]
    assert result["payouts"] == {"ann": 0, "bob": 6}
    assert result["stacks"] == {"ann": 97, "bob": 103}


def test_rule_13_bet_beyond_an_all_in_is_returned() -> None:
    hand = make_hand(HEADS_UP, stacks={"ann": 5, "bob": 100})
    play(hand, "bring-in", "call", "bet", "call")  # ann calls all-in for 2 of bob's 5
    assert [(e.seat, e.amount) for e in hand.events if isinstance(e, UncalledReturned)] == [(1, 3)]
    assert hand.contributed == [5, 5] and hand.is_over


# ------------------------------------------------------------------ rule 14


def test_rule_14_last_player_in_wins_without_showing() -> None:
    hand = make_hand({"ann": "Ac Ad 9h", "bob": "Kc Kd 2c", "cat": "Qc Qd Ts"})
    play(hand, "bring-in", "complete", "fold", "fold")
    assert hand.is_over and not any(isinstance(e, HandShown) for e in hand.events)
    assert stacks(hand) == {"ann": 99, "bob": 97, "cat": 104}
    assert [(r.amount, r.high, r.low) for r in hand.pot_results] == [(7, (2,), ())]  # rule 11: one pot


# ------------------------------------------------------------------ rule 15

RULE_15 = {"ann": "Ac Ad 9h 9d 2s 3s 4c", "bob": "Kc Kd 2c 3d 5s 6s 8c", "cat": "Qc Qh Th Td Jh Jc 7d"}


def test_rule_15_last_bettor_on_the_last_round_shows_first() -> None:
    hand = make_hand(RULE_15)
    play(hand, "bring-in", "call", "call", *["check"] * 9)
    assert hand.actor_name == "cat"
    play(hand, "check", "bet", "call", "call")
    assert hand.show_order == [0, 1, 2]
    shown = [e.seat for e in hand.events if isinstance(e, HandShown)]
    assert shown == [0, 1, 2]


def test_rule_15_without_a_bet_the_first_to_act_shows_first() -> None:
    hand = make_hand(RULE_15)
    play(hand, "bring-in", "call", "call", *["check"] * 12)
    assert hand.show_order == [2, 0, 1]


# ------------------------------------------------------------------ rule 18


def test_rule_18_without_a_low_the_high_takes_the_whole_pot() -> None:
    hand = make_hand({"ann": "Kc Kd 9h 9d Ts Js Qc", "bob": "Ac Ad Ah Qs Qd Jc Th"})
    play(hand, "bring-in", "call", *["check"] * 8)
    assert [(r.high, r.low, dict(r.shares)) for r in hand.pot_results] == [((1,), (), {1: 6})]
    assert stacks(hand) == {"ann": 97, "bob": 103}


def test_rule_18_odd_chip_goes_to_the_high_half() -> None:
    cards = {"ann": "9c 9d Kh", "bob": "Ac 2d 2c 3h 4s 5d Kc", "cat": "Qc Qd Qh Js Jd Ts 9s"}
    hand = make_hand(cards)
    play(hand, "bring-in", "call", "fold", *["check"] * 8)
    # One pot of 7 (ann's folded ante is dead money in it, rule 11): high (cat) 4, low
    # (bob's wheel) 3.
    assert [(r.amount, dict(r.shares)) for r in hand.pot_results] == [(7, {2: 4, 1: 3})]
    assert stacks(hand) == {"ann": 99, "bob": 100, "cat": 101}


def test_rule_18_each_pot_on_its_own_side_pot_without_low_goes_to_high() -> None:
    cards = {"ann": "Kc Kd Kh Ks Qs Qd Jh", "bob": "Jc Jd Js 9h 9s Th Tc", "cat": "Ac 2d 3c 4h 5s 9d Td"}
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 3})
    assert hand.actor_name == "cat"
    play(hand, "bring-in", "complete", "call", "bet", "call", "bet", "call", *["check"] * 4)
    # Main pot 9: ann's quads high (5), cat's wheel low (4). Side pot 36: nobody in it
    # has a low, so it all goes to ann (PokerKit would split it; rule 18 does not).
    assert [(r.amount, r.high, r.low, dict(r.shares)) for r in hand.pot_results] == [
        (9, (0,), (2,), {0: 5, 2: 4}),
        (36, (0,), (), {0: 36}),
    ]
    assert stacks(hand) == {"ann": 120, "bob": 79, "cat": 4}


def test_rule_18_one_player_can_scoop() -> None:
    hand = make_hand({"ann": "Ac 2c 3c 4c 5c 9d Td", "bob": "Kc Kd Ks Qs Qd Qh 9c"})
    play(hand, "bring-in", "call", *["check"] * 8)
    assert [(r.high, r.low, dict(r.shares)) for r in hand.pot_results] == [((0,), (0,), {0: 6})]


# ------------------------------------------------------------------ rule 19

QUARTER = {"ann": "Ac 2d 3h 4s 5c Kd Qd", "bob": "Ad 2c 3s 4h 5d Js Jh", "cat": "Kc Kh Ks Qs Qh 9c 9h"}


def test_rule_19_quartering_and_the_low_odd_chip() -> None:
    hand = make_hand(QUARTER)
    assert hand.actor_name == "ann"  # 3h below 3s
    play(hand, "bring-in", "complete", "call", "call", *["check"] * 12)
    # 18 chips: cat's kings full 9; ann and bob both have wheels and split the low 9,
    # the odd chip to ann, whose lowest card (Ac) is below bob's (Ad).
    assert [(r.high, r.low, dict(r.shares)) for r in hand.pot_results] == [((2,), (0, 1), {2: 9, 0: 5, 1: 4})]
    assert stacks(hand) == {"ann": 99, "bob": 98, "cat": 103}


def test_rule_19_high_tie_odd_chip_to_the_highest_card() -> None:
    cards = {"ann": "9c Tc Jd Qh Ks 2d 3d", "bob": "9d Td Jh Qs Kh 2h 4c", "cat": "Ac Ad As"}
    hand = make_hand(cards)
    play(hand, "bring-in", "call", "fold", *["check"] * 8)
    # Both have the king-high straight; ann's Ks outranks bob's Kh for the odd chip.
    assert [(r.amount, dict(r.shares)) for r in hand.pot_results] == [(7, {0: 4, 1: 3})]


def test_rule_19_identical_two_way_winners_split_as_one_pot() -> None:
    stakes = Stakes(ante=3, bring_in=3, small_bet=10, big_bet=20)
    cards = {"ann": "Ac 2d 3h 4s 5c Kd Qd", "bob": "Ad 2c 3s 4h 5d Js Jh"}
    hand = make_hand(cards, stakes=stakes)
    play(hand, "bring-in", "complete", "call", "check", "check", "bet", "call", *["check"] * 4)
    # 66 chips, same players best high and best low: 33 and 33 (not 34 and 32).
    assert [(r.amount, dict(r.shares)) for r in hand.pot_results] == [(66, {0: 33, 1: 33})]


def test_rule_19_identical_winners_odd_chip_by_the_high_order() -> None:
    cards = {"ann": "Ac 2d 3h 4s 5c Qd Jd", "bob": "Ad 2c 3s 4h 5d Ks Jh", "cat": "Tc Td Th"}
    hand = make_hand(cards)
    play(hand, "bring-in", "call", "fold", *["check"] * 8)
    # The pot of 7 is divided as one pot: the odd chip to bob's Ks (high order), where
    # half-by-half (high 4 as 2/2, low 3 as 2/1) would have given ann the low half's chip
    # (her Ac).
    assert [(r.amount, dict(r.shares)) for r in hand.pot_results] == [(7, {1: 4, 0: 3})]


def test_rule_19_community_card_counts_in_no_odd_chip_tie_break() -> None:
    hand = replay_hand(HandFile.from_json((VECTORS / "rule_19_community_odd_chip.json").read_text()))
    assert hand.community is not None and str(hand.community) == "As"
    # p1 and p2 share the broadway straight through the community ace; the odd chip of
    # the 14-chip side pot's high half goes to p2's own Ks, not by the shared As.
    side = hand.pot_results[1]
    assert side.high == (1, 2) and dict(side.shares) == {0: 7, 1: 3, 2: 4}
    assert result_of(hand)["stacks"] == {
        "p0": 108, "p1": 102, "p2": 103, "p3": 97, "p4": 97, "p5": 97, "p6": 97, "p7": 0,
    }


# ------------------------------------------------------------------ rule 20


def _random_play(hand: Hand, rng: random.Random) -> None:
    while not hand.is_over:
        hand.act(rng.choice(hand.legal_actions()))


def test_rule_20_chips_are_never_created_or_lost() -> None:
    rng = random.Random(20)
    for _ in range(300):
        n = rng.randint(2, 8)
        start = [rng.choice([1, 2, 3, 5, 8, 13, 30, 100]) for _ in range(n)]
        hand = Hand(
            stakes=Stakes(), names=[f"p{i}" for i in range(n)], stacks=start,
            dealer=DeckDealer(Deck.shuffled(rng=rng)),
        )
        _random_play(hand, rng)
        assert sum(hand.stacks) == sum(start)
        assert min(hand.stacks) >= 0
        assert sum(sum(r.shares.values()) for r in hand.pot_results) == sum(hand.contributed)


def test_hand_file_round_trips() -> None:
    text = (VECTORS / "hand_format_example.json").read_text()
    hand = replay_hand(HandFile.from_json(text))
    again = json.loads(HandFile.from_json(text).to_json())
    assert again["actions"] == json.loads(text)["actions"]
    assert result_of(replay_hand(HandFile.from_dict(again))) == result_of(hand)
