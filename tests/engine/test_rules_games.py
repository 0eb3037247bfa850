"""GAMES.md G1-G9: what Seven Card Stud and Razz change from Stud Hi-Lo, one test per decided point.

Cards are listed in dealt order (down, down, door, fourth, fifth, sixth, seventh); seats
are in the order the players are named. Default stakes: ante 1, bring-in 2, small bet 5,
big bet 10.
"""

from __future__ import annotations

import json

import pytest

from engine import (
    Hand,
    HandFile,
    IllegalActionError,
    Options,
    ScriptedDealer,
    ShortAllIn,
    Stakes,
    hand_file_of,
    parse_cards,
    replay_hand,
    result_of,
)
from engine.events import Action
from engine.games import MIX_ORDER, RULES_OF, Game, mix_game
from engine.lowball import razz_value

RAZZ, STUD, STUD8 = Game.RAZZ, Game.STUD, Game.STUD8


def deal(cards: dict[str, str], *, game: Game, stacks: dict[str, int] | None = None,
         options: Options | None = None, stakes: Stakes | None = None) -> Hand:
    names = list(cards)
    return Hand(
        stakes=stakes or Stakes(), options=options, names=names,
        stacks=[(stacks or {}).get(n, 100) for n in names],
        dealer=ScriptedDealer(cards=[parse_cards(cards[n]) for n in names], names=names), game=game,
    )


def play(hand: Hand, *actions: str) -> Hand:
    for action in actions:
        hand.act(action)
    return hand


def legal(hand: Hand) -> list[str]:
    return [a.value for a in hand.legal_actions()]


def checks(count: int) -> list[str]:
    return ["check"] * count


# ------------------------------------------------------------------ G1, G2: the bring-in


def test_rule_g1_stud_bring_in_lowest_door_clubs_lowest_aces_high() -> None:
    doors = {"ann": "Ah Kh 2d", "bob": "Qh Jh 2c", "cat": "Th 9h Ac"}
    assert deal(doors, game=STUD).bring_in_seat == 1  # 2c: clubs are the lowest suit
    assert deal({"ann": "Ah Kh Ac", "bob": "Qh Jh 3d"}, game=STUD).bring_in_seat == 1  # aces high


def test_rule_g2_razz_bring_in_highest_door() -> None:
    assert deal({"ann": "Ah Kh 9c", "bob": "Qh Jh Kd", "cat": "Th 8h 2h"}, game=RAZZ).bring_in_seat == 1


def test_rule_g2_razz_bring_in_suit_tie() -> None:
    # Spades highest: the Ks brings in before the Kh and the Kd.
    assert deal({"ann": "Ah 2h Kh", "bob": "Qh Jh Ks", "cat": "Th 8h Kd"}, game=RAZZ).bring_in_seat == 1
    # PokerStars: a Qh and a Qc door, the Qh brings in.
    assert deal({"ann": "Ah 2h Qc", "bob": "3h 4h Qh"}, game=RAZZ).bring_in_seat == 1
    assert RULES_OF[RAZZ].bring_in(parse_cards("Qh Qc")) == 0


def test_rule_g2_razz_aces_low() -> None:
    # The ace is the lowest card in Razz: the 2 is the higher door and brings in.
    assert deal({"ann": "Kh Qh Ac", "bob": "Jh Th 2d"}, game=RAZZ).bring_in_seat == 1


def test_rule_g2_razz_bring_in_passes_to_the_next_player_with_chips() -> None:
    # ann's Kd is the highest door but her only chip went in as the ante (rule 4).
    hand = deal({"ann": "Ah 2h Kd", "bob": "3h 4h 9c", "cat": "5h 6h Tc"}, game=RAZZ, stacks={"ann": 1})
    assert hand.bring_in_seat == 1


# ------------------------------------------------------------------ G3, G4: who acts first


def test_rule_g3_stud_best_high_board_acts_first() -> None:
    cards = {"ann": "2h 3h 6c Td 8s", "bob": "4h 5h 2d Kd 9s", "cat": "7h 8h 9c Ad 3s"}
    hand = play(deal(cards, game=STUD), "bring-in", "call", "call")
    assert hand.bring_in_seat == 1 and hand.street == 4
    assert hand.actor == 2  # 9-A is the best high board


def test_rule_g4_razz_unpaired_board_lower_than_paired() -> None:
    hand = play(deal({"ann": "3h 4h 2c 2d", "bob": "5h 6h Kc Qd"}, game=RAZZ), "bring-in", "call")
    assert hand.bring_in_seat == 1 and hand.street == 4
    assert hand.actor == 1  # K-Q acts before a pair of twos


def test_rule_g4_razz_boards_compare_from_the_highest_card_down() -> None:
    # 8-4-2 (bob) is lower than 8-5-A (ann): bob acts first although ann sits first.
    cards = {"ann": "Tc Jc 8s 5d Ah", "bob": "Td Jd 8c 4d 2h"}
    hand = play(deal(cards, game=RAZZ), "bring-in", "call")
    assert hand.actor == 1
    play(hand, "check", "check")
    assert hand.street == 5 and hand.actor == 1
    # 7-6-5 (bob) is lower than 8-2-A (ann).
    cards = {"ann": "Tc Jc 8s 2d Ah", "bob": "Td Jd 7c 6d 5h"}
    hand = play(deal(cards, game=RAZZ), "bring-in", "call", "check", "check")
    assert hand.street == 5 and hand.actor == 1 and hand.first_actors == {3: 0, 4: 1, 5: 1}


@pytest.mark.parametrize(("ann_board", "cat_board"), [("7h 4d", "7s 4c"), ("7s 4c", "7h 4d")])
def test_rule_g4_razz_equal_boards_first_in_seat_order_never_by_suit(ann_board: str, cat_board: str) -> None:
    # bob brings in (Kd); ann and cat show the same 7-4: ann, the first of them in seat
    # order, opens fourth street, whichever suits they hold.
    ann_door, ann_fourth = ann_board.split()
    cat_door, cat_fourth = cat_board.split()
    cards = {"ann": f"2h 3h {ann_door} {ann_fourth}", "bob": "5h 6h Kd Ks",
             "cat": f"8h 9h {cat_door} {cat_fourth}"}
    hand = play(deal(cards, game=RAZZ), "bring-in", "call", "call")
    assert hand.bring_in_seat == 1 and hand.street == 4 and hand.actor == 0


def test_rule_g4_razz_all_in_lowest_board_next_who_can_act() -> None:
    # ann (2-3, the lowest board) is all-in; the next player clockwise who can act, bob,
    # opens, not cat, whose Q-4 is the next lowest board.
    cards = {"ann": "5h 6h 2c 3c", "bob": "7h 8h Kd 9s", "cat": "Th Jh Qd 4h"}
    hand = play(deal(cards, game=RAZZ, stacks={"ann": 3}), "bring-in", "call", "call")
    assert hand.is_all_in(0) and hand.street == 4
    assert hand.actor == 1


# ------------------------------------------------------------------ G5: the open pair (Stud only)

# ann shows 9c 9d on fourth street and opens it; bob brings in with the 2d.
PAIR = {"ann": "Ah Kh 9c 9d 2s Js 4c", "bob": "Qh Jh 2d 5c 7s 8s 3c", "cat": "Th 8h 6d Kc 3s Tc 5d"}


def fourth(*, game: Game = STUD, stacks: dict[str, int] | None = None, options: Options | None = None) -> Hand:
    hand = play(deal(PAIR, game=game, stacks=stacks, options=options), "bring-in", "call", "call")
    assert hand.street == 4
    return hand


def test_rule_g5_pair_showing_opens_fourth_with_the_small_or_the_big_bet() -> None:
    hand = fourth()
    assert hand.actor == 0 and hand.double_bet_allowed and hand.double_bet_open
    assert legal(hand) == ["check", "bet", "bet-big"]
    assert hand.amount_of("bet") == 5 and hand.amount_of("bet-big") == 10
    assert "bet-big 10" in hand.describe_legal()


def test_rule_g5_choice_stays_open_after_the_pairs_owner_folds() -> None:
    hand = play(fourth(), "check", "check", "bet", "fold")  # cat bets small, ann (the pair) folds
    assert hand.actor == 1 and hand.folded[0]
    assert legal(hand) == ["call", "fold", "raise", "raise-big"]
    assert hand.total_after("raise-big") == 15


def test_rule_g5_all_in_players_pair_counts() -> None:
    hand = fourth(stacks={"ann": 3})  # ann is all-in on third street
    assert hand.is_all_in(0) and hand.actor == 1  # rule 8: next after the all-in best board
    assert hand.double_bet_allowed and legal(hand) == ["check", "bet", "bet-big"]


def test_rule_g5_after_a_small_bet_a_raise_adds_the_small_or_the_big_bet() -> None:
    hand = play(fourth(), "bet")
    assert hand.round_bets[0] == 5
    assert legal(hand) == ["call", "fold", "raise", "raise-big"]
    assert hand.total_after("raise") == 10 and hand.total_after("raise-big") == 15
    assert "raise-big to 15" in hand.describe_legal()
    play(hand, "raise-big")  # bob: every later raise adds the big bet
    assert hand.big_step and hand.limit == 10 and legal(hand) == ["call", "fold", "raise"]
    assert hand.total_after("raise") == 25


def test_rule_g5_after_a_big_bet_raises_add_the_big_bet_and_raise_big_is_closed() -> None:
    hand = play(fourth(), "bet-big")
    assert not hand.double_bet_open and legal(hand) == ["call", "fold", "raise"]
    assert hand.total_after("raise") == 20
    with pytest.raises(IllegalActionError) as refused:
        hand.act("raise-big")
    assert refused.value.reason == "double_closed"
    play(hand, "raise")
    assert hand.current_bet == 20 and hand.total_after("raise") == 30


def test_rule_g5_bet_and_raise_take_the_small_step_while_open() -> None:
    hand = play(fourth(), "bet", "raise")
    assert hand.current_bet == 10 and hand.double_bet_open
    assert hand.total_after("raise") == 15 and hand.total_after("raise-big") == 20


def test_rule_g5_raise_big_only_with_chips_past_the_small_step() -> None:
    # bob has 10 left on fourth street: a raise to 10 is all he has, not more than the small step.
    hand = play(fourth(stacks={"bob": 13}), "bet")
    assert hand.stacks[1] == 10 and legal(hand) == ["call", "fold", "raise"]
    with pytest.raises(IllegalActionError) as refused:
        hand.act("raise-big")
    assert refused.value.reason == "double_short"
    # ann with 5 left: a bet is all she has; no bet-big.
    hand = fourth(stacks={"ann": 8})
    assert hand.stacks[0] == 5 and legal(hand) == ["check", "bet"]
    with pytest.raises(IllegalActionError) as refused:
        hand.act("bet-big")
    assert refused.value.reason == "double_short"


def test_rule_g5_cap_counts_big_bets_and_raises() -> None:
    hand = play(fourth(), "bet-big", "raise", "raise", "raise")
    assert hand.is_capped and hand.current_bet == 40 and legal(hand) == ["call", "fold"]


def test_rule_g5_all_in_bet_big_judged_against_the_big_bet() -> None:
    # Full-bet rule: ann's all-in bet-big of 8 is more than the small bet but not a full big bet.
    hand = play(fourth(stacks={"ann": 11}, options=Options(short_all_in=ShortAllIn.FULL)), "bet-big")
    assert hand.is_all_in(0) and hand.full_bets == 0
    # Facing a short bet-big, complete goes to the big bet.
    assert legal(hand) == ["call", "complete", "fold"] and hand.total_after("complete") == 10
    # The half-bet rule (the default): 6 is half the big bet or more, a full bet; raises add the big bet.
    hand = play(fourth(stacks={"ann": 9}), "bet-big")
    assert hand.is_all_in(0) and hand.full_bets == 1
    assert legal(hand) == ["call", "fold", "raise"] and hand.total_after("raise") == 16


def test_rule_g5_all_in_bet_judged_against_the_small_step() -> None:
    hand = play(fourth(stacks={"ann": 7}, options=Options(short_all_in=ShortAllIn.FULL)), "bet")
    assert hand.is_all_in(0) and hand.round_bets[0] == 4 and hand.full_bets == 0
    assert legal(hand) == ["call", "complete", "fold"] and hand.total_after("complete") == 5


def test_rule_g5_option_off() -> None:
    hand = fourth(options=Options(open_pair_double=False))
    assert not hand.double_bet_allowed and legal(hand) == ["check", "bet"]
    with pytest.raises(IllegalActionError) as refused:
        hand.act("bet-big")
    assert refused.value.reason == "double_closed"


@pytest.mark.parametrize("game", [RAZZ, STUD8])
def test_rule_g5_no_open_pair_in_razz_or_stud8(game: Game) -> None:
    hand = play(deal(PAIR, game=game), "bring-in", "call", "call")
    assert hand.street == 4 and not hand.double_bet_allowed
    assert "bet-big" not in legal(hand)


def test_rule_g5_only_fourth_street() -> None:
    hand = play(fourth(), *checks(3))
    assert hand.street == 5 and not hand.double_bet_open and legal(hand) == ["check", "bet"]
    assert hand.amount_of("bet") == 10


# ------------------------------------------------------------------ G6: Stud's showdown

def test_rule_g6_stud_best_high_takes_the_whole_pot_no_low() -> None:
    cards = {"ann": "8c 7d 5h 3s 2c Jd 9h", "bob": "Kc Kd Qh 6s Ts 4c 4h"}
    hand = play(deal(cards, game=STUD), "bring-in", "call", *checks(8))
    assert hand.is_over and hand.low_value(0) is None
    assert [(r.amount, r.high, r.low) for r in hand.pot_results] == [(6, (1,), ())]
    assert result_of(hand)["pots"][0]["low"] == []
    # The same cards in Stud Hi-Lo split: ann's 8-7-5-3-2 takes the low half.
    split = play(deal(cards, game=STUD8), "bring-in", "call", *checks(8))
    assert [(r.high, r.low) for r in split.pot_results] == [((1,), (0,))]


def test_rule_g6_stud_tie_split_as_rule_19_high() -> None:
    # ann and bob hold A-K-Q-J-9; 9 chips split 5/4, the odd chip to the highest card: bob's Ad.
    cards = {"ann": "Ac Kc Qd Jd 9s 3c 2d", "bob": "Ad Kd Qh Jc 9d 3s 2s", "cat": "Kh 8c 7s 6h 4d 3d 2c"}
    hand = play(deal(cards, game=STUD), "bring-in", "call", "call", *checks(12))
    (pot,) = hand.pot_results
    assert pot.high == (0, 1) and pot.low == () and dict(pot.shares) == {0: 4, 1: 5}


# ------------------------------------------------------------------ G7: Razz's showdown


def low(text: str) -> int:
    return razz_value(parse_cards(text))


def test_rule_g7_five_different_ranks_beat_any_pair() -> None:
    assert low("Kc Qd Jh Ts 9c") > low("Ac Ad 2h 3s 4c")  # K-Q-J-10-9 beats any pair


def test_rule_g7_order_of_the_kinds() -> None:
    one_pair, two_pair, trips = low("Kc Kd Qh Js Tc"), low("Ac Ad 2h 2s 3c"), low("Kc Kd Ks Qh Jc")
    full_house, quads = low("Ac Ad As 2h 2s"), low("Kc Kd Kh Ks Qc")
    assert one_pair > two_pair > low("Ac Ad Ah 2s 3c") > trips > full_house > low("Kc Kd Kh Qs Qc") > quads


def test_rule_g7_lower_pair_is_better_then_kickers_from_the_highest_down() -> None:
    assert low("2c 2d Kh Qs Jc") > low("3c 3d 4h 5s 6c")  # 2-2-K-Q-J beats 3-3-4-5-6
    assert low("2c 2d Kh Qs Tc") > low("2h 2s Kd Qc Jd")  # kickers from the highest down
    assert low("4c 4d 3h 3s Kc") > low("5c 5d 2h 2s Ac")  # two pair: the higher pair first
    assert low("4c 4d 3h 3s Qc") > low("4h 4s 3c 3d Kd")


def test_rule_g7_wheel_is_best_straights_and_flushes_ignored() -> None:
    wheel = low("5c 4d 3h 2s Ac")
    assert wheel == low("5s 4s 3s 2s As")  # a straight flush is just 5-4-3-2-A
    assert wheel > low("6c 4d 3h 2s Ac")
    assert low("6c 5d 4h 3s 2c") > low("7c 4d 3h 2s Ac")  # 6-5-4-3-2 is a six low, not a straight
    assert low("9c 7d 4h 2s Ac Kd Kh") == low("9h 7c 4d 2c Ad")  # the best five of seven


def test_rule_g7_razz_best_low_takes_the_whole_pot_no_qualifier() -> None:
    # No eight-or-better here: bob's K-Q-J-9-8 still takes the pot from ann's pair.
    cards = {"ann": "Ac Ad 2c 2d 3c 3d Kh", "bob": "Kc Qd Jh 9s 8h 5s 5d"}
    hand = play(deal(cards, game=RAZZ), "bring-in", "call", *checks(8))
    (pot,) = hand.pot_results
    assert pot.high == () and pot.low == (1,) and dict(pot.shares) == {1: 6}
    assert result_of(hand)["pots"][0]["high"] == []


def test_rule_g7_razz_tie_odd_chip_to_the_lowest_card() -> None:
    # Tied wheels split 9 chips 5/4; the odd chip goes by rule 19's low order: bob's Ac.
    cards = {"ann": "Ad 2d 9c 3d 4d 5d Kd", "bob": "Ac 2c 8c 3c 4c 5c Qc", "cat": "Jh Js Ks Th Ts Jc 9h"}
    hand = play(deal(cards, game=RAZZ), "bring-in", "call", "call", *checks(12))
    (pot,) = hand.pot_results
    assert pot.low == (0, 1) and dict(pot.shares) == {0: 4, 1: 5}


def test_rule_g7_razz_uncontested_pot_names_a_low_winner() -> None:
    hand = play(deal({"ann": "Ah 2h Kd", "bob": "3h 4h 9c"}, game=RAZZ), "bring-in", "fold")
    assert [(r.high, r.low) for r in hand.pot_results] == [((), (0,))]
    assert result_of(hand)["pots"][0]["high"] == []


# ------------------------------------------------------------------ G8: the mix


def test_rule_g8_mix_rotation_razz_stud_stud8() -> None:
    assert MIX_ORDER == (RAZZ, STUD, STUD8)
    games = [mix_game(index=i, per_game=8) for i in range(25)]
    assert games == [RAZZ] * 8 + [STUD] * 8 + [STUD8] * 8 + [RAZZ]
    assert [mix_game(index=i, per_game=1) for i in range(4)] == [RAZZ, STUD, STUD8, RAZZ]
    assert mix_game(index=149, per_game=50) is STUD8 and mix_game(index=150, per_game=50) is RAZZ


# ------------------------------------------------------------------ G9: a hand's game in files


@pytest.mark.parametrize(("game", "empty"), [(RAZZ, "high"), (STUD, "low")])
def test_rule_g9_file_round_trip_and_result_pots(game: Game, empty: str) -> None:
    hand = play(deal(PAIR, game=game), "bring-in", "call", "call", "check", "bet", "call", "fold",
                *checks(6))
    assert hand.is_over
    data = json.loads(hand_file_of(hand).to_json())
    assert data["game"] == game.value and "open_pair_double" not in data["options"]
    again = replay_hand(HandFile.from_json(json.dumps(data)))
    assert again.game is game and again.stacks == hand.stacks
    result = result_of(again)
    assert result == result_of(hand)
    assert all(pot[empty] == [] for pot in result["pots"])
    assert all(pot["low" if empty == "high" else "high"] for pot in result["pots"])


def test_rule_g9_stud8_file_has_no_game_and_option_written_only_when_off() -> None:
    hand = play(deal(PAIR, game=STUD8), "bring-in", "fold", "fold")
    data = hand_file_of(hand).to_dict()
    assert "game" not in data and "open_pair_double" not in data["options"]
    assert replay_hand(HandFile.from_dict(data)).game is STUD8
    off = play(deal(PAIR, game=STUD, options=Options(open_pair_double=False)), "bring-in", "call", "call",
               "check", "check", "check", "check", "check", "check", "check", "check", "check",
               "check", "check", "check")
    data = hand_file_of(off).to_dict()
    assert data["game"] == "stud" and data["options"]["open_pair_double"] is False
    assert replay_hand(HandFile.from_dict(data)).options.open_pair_double is False


def test_rule_g9_bet_big_replays_from_a_file() -> None:
    hand = play(fourth(), "bet-big", "raise", "fold", "call", *checks(6))
    data = hand_file_of(hand).to_dict()
    assert "bet-big" in data["actions"]
    assert replay_hand(HandFile.from_dict(data)).stacks == hand.stacks


# ------------------------------------------------------------------ rule 6's cap heads-up, every game


@pytest.mark.parametrize("game", list(Game))
@pytest.mark.parametrize("option", [True, False])
def test_rule_6_heads_up_cap_holds_in_every_game(game: Game, option: bool) -> None:
    cards = {"ann": "Ah 2h 3c 4h 5h 6h 7h", "bob": "Kc Kd 9d Ks Qs Js 9s"}
    hand = play(deal(cards, game=game, options=Options(heads_up_cap=option)),
                "bring-in", "complete", "raise", "raise", "raise")
    assert hand.full_bets == 4
    assert ("raise" not in legal(hand)) is option
    assert legal(hand)[:2] == ["call", "fold"] if option else "raise" in legal(hand)


def test_g_rules_cover_each_game_in_the_engine() -> None:
    assert set(RULES_OF) == set(Game) and [g.label for g in Game] == ["Stud Hi-Lo", "Stud", "Razz"]
    assert Action.BET_BIG.value == "bet-big" and Action.RAISE_BIG.value == "raise-big"
