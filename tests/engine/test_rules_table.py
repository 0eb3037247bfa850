"""Rules 1-10 of RULES.md, one scripted hand (or more) per rule, exact cards and stacks."""

from __future__ import annotations

import pytest
from helpers import legal, make_hand, play, stacks

from engine import (
    ALL_CARDS,
    Deck,
    DeckDealer,
    Hand,
    IllegalActionError,
    NotYourTurnError,
    Options,
    SetupError,
    Stakes,
    StakesError,
    parse_cards,
)
from engine.events import CardDealt, CommunityCardDealt
from engine.order import board_key

# ------------------------------------------------------------------ rule 1


def test_rule_1_two_to_eight_players() -> None:
    deck = Deck.from_cards(ALL_CARDS)
    with pytest.raises(SetupError, match="2 to 8 players, got 1"):
        Hand(stakes=Stakes(), names=["ann"], stacks=[10], dealer=DeckDealer(deck))
    names = [f"p{i}" for i in range(9)]
    with pytest.raises(SetupError, match="got 9"):
        Hand(stakes=Stakes(), names=names, stacks=[10] * 9, dealer=DeckDealer(deck))


def test_rule_1_deals_round_the_table_in_seat_order_without_burns() -> None:
    order = list(ALL_CARDS)
    hand = Hand(stakes=Stakes(), names=["a", "b", "c"], stacks=[100] * 3, dealer=DeckDealer(Deck.from_cards(order)))
    # Third street: a down card to each seat, another, then the door cards.
    assert [hand.cards[s] for s in range(3)] == [
        [order[0], order[3], order[6]],
        [order[1], order[4], order[7]],
        [order[2], order[5], order[8]],
    ]
    play(hand, "bring-in", "call", "call")
    assert hand.street == 4
    # Fourth street: the next three cards, one each, no burn card.
    assert [hand.cards[s][3] for s in range(3)] == order[9:12]


def test_rule_1_a_malformed_or_duplicate_card_is_refused() -> None:
    with pytest.raises(Exception, match="appears twice"):
        make_hand({"ann": "As Kd 2c", "bob": "As Qd 3c"})


# ------------------------------------------------------------------ rule 2


def test_rule_2_defaults_and_valid_stakes() -> None:
    assert Stakes() == Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)
    Stakes(ante=2, bring_in=2, small_bet=5, big_bet=10)  # bring-in equal to the ante
    Stakes(ante=0, bring_in=1, small_bet=2, big_bet=4)


@pytest.mark.parametrize(
    "ante,bring_in,small,big",
    [(3, 2, 5, 10), (1, 5, 5, 10), (1, 2, 10, 10), (1, 2, 10, 5), (-1, 2, 5, 10), (0, 0, 5, 10)],
)
def test_rule_2_invalid_stakes_are_refused(ante: int, bring_in: int, small: int, big: int) -> None:
    with pytest.raises(StakesError, match="rule 2"):
        Stakes(ante=ante, bring_in=bring_in, small_bet=small, big_bet=big)


def test_rule_2_stakes_must_be_whole_chips() -> None:
    with pytest.raises(StakesError, match="whole numbers"):
        Stakes(ante=1, bring_in=2.5, small_bet=5, big_bet=10)  # type: ignore[arg-type]


# ------------------------------------------------------------------ rule 3

RULE_3_CARDS = {
    "ann": "Ah Kh 9s Qs Js 4d 3d",
    "bob": "2d 3c 5h 8c 7c 6c Tc",
    "cat": "Ac Ad Kc Kd 2h 2s Ks",
}


def test_rule_3_everyone_posts_the_ante() -> None:
    hand = make_hand(RULE_3_CARDS, stacks=100)
    assert hand.contributed == [1, 1, 1]
    assert stacks(hand) == {"ann": 99, "bob": 99, "cat": 99}


def test_rule_3_short_ante_is_all_in_and_wins_only_the_main_pot() -> None:
    stakes = Stakes(ante=2, bring_in=2, small_bet=5, big_bet=10)
    hand = make_hand(RULE_3_CARDS, stacks={"ann": 100, "bob": 100, "cat": 1}, stakes=stakes)
    assert hand.contributed == [2, 2, 1] and hand.is_all_in(2)
    assert hand.actor_name == "bob"  # 5h is the lowest door card
    play(hand, "bring-in", "call", *["check"] * 8)
    assert hand.is_over
    # Main pot 1+1+1 = 3: cat's kings full take the high half (2, odd chip), bob's 7-6-5-3-2 the low.
    # Side pot of ann's and bob's other 3 chips each: bob's flush and low scoop it.
    pots = [(r.amount, r.eligible, r.shares) for r in hand.pot_results]
    assert pots == [(3, (0, 1, 2), {2: 2, 1: 1}), (6, (0, 1), {1: 6})]
    assert stacks(hand) == {"ann": 96, "bob": 103, "cat": 2}


# ------------------------------------------------------------------ rule 4


def test_rule_4_lowest_door_card_brings_in_aces_high() -> None:
    hand = make_hand({"ann": "2c 2d As", "bob": "Kc Kd 3h", "cat": "Qc Qd Kh"})
    assert hand.bring_in_seat == 1 and hand.actor_name == "bob"


def test_rule_4_bring_in_suit_tie() -> None:
    # Equal ranks: clubs < diamonds < hearts < spades.
    hand = make_hand({"ann": "Ac Ad 2h", "bob": "Kc Kd 2c", "cat": "Qc Qd 2d"})
    assert hand.actor_name == "bob"
    hand = make_hand({"ann": "Ac Ad 2s", "bob": "Kc Kd 2h", "cat": "Qc Qd 9d"})
    assert hand.actor_name == "bob"


def test_rule_4_no_chips_after_ante_passes_the_duty_clockwise() -> None:
    # ann has the lowest door card but nothing left after the ante: the next player
    # clockwise with chips (bob, not cat's next-lowest 3h) brings in.
    hand = make_hand({"ann": "Ac Ad 2c", "bob": "Kc Kd Ks", "cat": "Qc Qd 3h"}, stacks={"ann": 1, "bob": 50, "cat": 50})
    assert hand.is_all_in(0)
    assert hand.bring_in_seat == 1


def test_rule_4_short_bring_in_posts_what_is_left() -> None:
    hand = make_hand({"ann": "Ac Ad 2c", "bob": "Kc Kd Ks", "cat": "Qc Qd Qs"}, stacks={"ann": 2, "bob": 50, "cat": 50})
    assert legal(hand) == ["bring-in"]
    hand.act("bring-in")
    assert hand.contributed[0] == 2 and hand.is_all_in(0)
    assert legal(hand) == ["call", "complete", "fold"]
    assert hand.amount_of("call") == 1


def test_rule_4_short_bring_in_heads_up_leaves_nothing_to_raise() -> None:
    # Rule 13: with the only opponent all-in, bob may only call or fold.
    hand = make_hand({"ann": "Ac Ad 2c", "bob": "Kc Kd Ks"}, stacks={"ann": 2, "bob": 50})
    play(hand, "bring-in")
    assert legal(hand) == ["call", "fold"]


# ------------------------------------------------------------------ rule 5

THREE = {"ann": "Ac Ad 9h", "bob": "Kc Kd 2c", "cat": "Qc Qd Ts"}


def test_rule_5_bring_in_player_posts_or_completes_and_cannot_fold() -> None:
    hand = make_hand(THREE)
    assert legal(hand) == ["bring-in", "complete"]
    assert not hand.can_fold()
    with pytest.raises(IllegalActionError, match="must post the bring-in or complete"):
        hand.fold()
    hand.complete()
    assert hand.contributed[1] == 1 + 5 and hand.full_bets == 1
    assert legal(hand) == ["call", "fold", "raise"]
    assert hand.total_after("raise") == 10


def test_rule_5_facing_the_bring_in_fold_call_or_complete() -> None:
    hand = play(make_hand(THREE), "bring-in")
    assert hand.actor_name == "cat"
    assert legal(hand) == ["call", "complete", "fold"]
    assert hand.amount_of("call") == 2 and hand.total_after("complete") == 5


def test_rule_5_complete_is_the_bet_and_raises_go_in_small_bets() -> None:
    hand = play(make_hand(THREE), "bring-in", "complete")
    assert hand.full_bets == 1 and hand.current_bet == 5
    assert legal(hand) == ["call", "fold", "raise"]
    hand.raise_bet()
    assert hand.current_bet == 10 and hand.full_bets == 2


def test_rule_5_everybody_calls_the_bring_in_and_the_round_ends() -> None:
    hand = make_hand({"ann": "Ac Ad 9h 8h", "bob": "Kc Kd 2c 3d", "cat": "Qc Qd Ts 4s"})
    play(hand, "bring-in", "call", "call")
    assert hand.street == 4  # bob, the bring-in, gets no option


def test_rule_5_bring_in_with_no_more_than_the_bring_in_can_only_post() -> None:
    hand = make_hand(THREE, stacks={"ann": 50, "bob": 3, "cat": 50})
    assert legal(hand) == ["bring-in"]
    hand = make_hand(THREE, stacks={"ann": 50, "bob": 4, "cat": 50})
    assert legal(hand) == ["bring-in", "complete"]
    hand.complete()
    assert hand.is_all_in(1) and hand.current_bet == 3


def test_rule_5_no_fold_when_checking_is_free() -> None:
    hand = make_hand({"ann": "Ac Ad 9h 8h", "bob": "Kc Kd 2c 3d", "cat": "Qc Qd Ts 4s"})
    play(hand, "bring-in", "call", "call")
    assert legal(hand) == ["bet", "check"]
    assert not hand.can_fold()
    with pytest.raises(IllegalActionError, match="checking is free"):
        hand.fold()


def test_rule_5_only_the_player_to_act_may_act() -> None:
    hand = make_hand(THREE)
    with pytest.raises(NotYourTurnError, match="bob's turn on third street, not ann's"):
        hand.act("bring-in", seat=0)
    hand.act("bring-in", seat=1)


# ------------------------------------------------------------------ rule 6


def test_rule_6_cap_is_a_bet_and_three_raises() -> None:
    hand = play(make_hand(THREE), "bring-in", "complete", "raise", "raise", "raise")
    assert hand.full_bets == 4 and hand.current_bet == 20
    assert hand.actor_name == "ann" and legal(hand) == ["call", "fold"]
    with pytest.raises(IllegalActionError, match="capped"):
        hand.raise_bet()


def test_rule_6_heads_up_the_cap_does_not_apply() -> None:
    hand = play(make_hand({"ann": "Ac Ad 9h", "bob": "Kc Kd 2c"}), "bring-in", "complete", "raise", "raise", "raise")
    assert hand.full_bets == 4 and legal(hand) == ["call", "fold", "raise"]
    hand.raise_bet()
    assert hand.current_bet == 25


def test_rule_6_heads_up_with_a_third_player_all_in_is_uncapped() -> None:
    hand = make_hand(THREE, stacks={"ann": 100, "bob": 100, "cat": 3})
    play(hand, "bring-in", "call", "complete", "raise", "raise", "raise")  # cat calls all-in for 2
    assert hand.is_all_in(2) and hand.full_bets == 4
    assert "raise" in legal(hand)


def test_rule_6_heads_up_cap_option_keeps_the_cap() -> None:
    hand = make_hand({"ann": "Ac Ad 9h", "bob": "Kc Kd 2c"}, options=Options(heads_up_cap=True))
    play(hand, "bring-in", "complete", "raise", "raise", "raise")
    assert legal(hand) == ["call", "fold"]


def test_rule_6_a_capped_round_stays_capped_heads_up() -> None:
    hand = play(make_hand(THREE), "bring-in", "complete", "raise", "raise", "raise", "fold")
    assert hand.actor_name == "bob" and legal(hand) == ["call", "fold"]


# ------------------------------------------------------------------ rule 7


def test_rule_7_fourth_street_is_a_small_bet_even_with_an_open_pair() -> None:
    hand = make_hand({"ann": "Ac Ad 9h 9d", "bob": "Kc Kd 2c 3d"})
    play(hand, "bring-in", "call")
    assert hand.street == 4 and hand.actor_name == "ann"
    assert legal(hand) == ["bet", "check"]
    assert hand.amount_of("bet") == 5
    hand.bet()
    assert legal(hand) == ["call", "fold", "raise"] and hand.total_after("raise") == 10


# ------------------------------------------------------------------ rule 8


def test_rule_8_board_order() -> None:
    def key(text: str) -> object:
        return board_key(parse_cards(text))

    assert key("2c 2d 2h 2s") > key("As Ah Ad Kc") > key("Qs Qh Jd Jc") > key("Ks Kh Ad Qc")
    assert key("Ks Kh Ad Qc") > key("Ks Kh Ad Jc") > key("As Kh Qd Jc")
    assert key("9c 2d 3s 4c") > key("5h 6h 7h 8h")  # straights and flushes do not count
    assert key("As 2d") > key("Ks Qd")  # aces high
    assert key("Ks 7d") == key("Kh 7c")


def test_rule_8_best_board_acts_first_and_may_check() -> None:
    hand = make_hand({"ann": "Ac Ad Kh Qd", "bob": "Kc Kd 2c 3d", "cat": "Qc Qh 9h 9d"})
    play(hand, "bring-in", "call", "call")
    assert hand.actor_name == "cat"  # open nines beat ace-king
    assert legal(hand) == ["bet", "check"]
    hand.check()
    assert hand.actor_name == "ann"


def test_rule_8_equal_boards_first_in_seat_order() -> None:
    hand = make_hand({"ann": "2c 2d 3h 2h", "bob": "Kc Jd Ks 3d", "cat": "Qc Qh Kh 3s"})
    play(hand, "bring-in", "call", "call")
    assert hand.first_actors[4] == 1  # bob and cat both show K-3: bob sits first


def test_rule_8_all_in_best_board_passes_to_next_clockwise() -> None:
    hand = make_hand(
        {"ann": "2c 2d 3h 4d", "bob": "Kc Jd 5s 6d", "cat": "Qc Qh 7h 7s"}, stacks={"ann": 50, "bob": 50, "cat": 3}
    )
    play(hand, "bring-in", "call", "call")  # cat calls all-in for 2
    assert hand.is_all_in(2)
    assert hand.first_actors[4] == 0  # cat's sevens are best, cat is all-in: ann, next clockwise


# ------------------------------------------------------------------ rule 9

RULE_9 = {
    "ann": "Ac Ad 9h 9d 2s 3s 4c",
    "bob": "Kc Kd 2c 3d 5s 6s 8c",
    "cat": "Qc Qh Th Td Jh Jc 7d",
}


def test_rule_9_big_bets_from_fifth_and_seventh_face_down() -> None:
    hand = make_hand(RULE_9)
    play(hand, "bring-in", "call", "call")
    assert hand.actor_name == "cat"  # tens beat nines
    play(hand, "check", "check", "check")
    assert hand.street == 5 and hand.amount_of("bet") == 10
    play(hand, "check", "check", "check", "check", "check", "check")
    assert hand.street == 7
    seventh = [e for e in hand.events if isinstance(e, CardDealt) and e.street == 7]
    assert len(seventh) == 3 and not any(e.face_up for e in seventh)
    assert hand.amount_of("bet") == 10


def test_rule_9_seventh_street_opener_is_the_sixth_street_opener() -> None:
    hand = make_hand(RULE_9)
    play(hand, "bring-in", "call", "call", *["check"] * 9)
    assert hand.street == 7 and hand.first_actors[6] == 2 and hand.actor_name == "cat"


def test_rule_9_seventh_street_opener_folded_passes_clockwise() -> None:
    # cat opens sixth street, then folds; on seventh the opener is the next player
    # clockwise from cat who can act (ann), not the best remaining board (ann's nines
    # vs bob's king-high: here the same seat; see the all-in case below for a split).
    hand = make_hand(RULE_9)
    play(hand, "bring-in", "call", "call", *["check"] * 6)
    assert hand.street == 6 and hand.actor_name == "cat"
    play(hand, "check", "bet", "call", "fold")  # cat checks, ann bets, bob calls, cat folds
    assert hand.street == 7 and hand.first_actors[7] == 0


def test_rule_9_sixth_street_opener_with_chips_opens_seventh() -> None:
    cards = {
        "ann": "Ac 2d 4h 5d 6s 7s 8c",
        "bob": "Kc Kd 2c Ks Qs Qd 3c",
        "cat": "Qc Qh Th Td Jh Jc 7d",
        "dan": "9c 9d 3h 3d 3s 4c 5c",
    }
    # Sixth street: dan's trips open; dan keeps one chip and opens seventh street too.
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 100, "dan": 14})
    play(hand, "bring-in", "call", "call", "call")  # 3 + dan's ante: dan has 11 left
    play(hand, *["check"] * 4)
    play(hand, *["check"] * 4)
    assert hand.street == 6 and hand.actor_name == "dan"
    play(hand, "bet", "call", "call", "call")  # dan bets 10, one chip left
    assert hand.street == 7 and hand.stacks[3] == 1
    assert hand.first_actors[7] == 3 and hand.actor_name == "dan"
    play(hand, "bet")  # dan all-in for 1
    assert hand.is_all_in(3)


def test_rule_9_seventh_street_opener_all_in_on_sixth() -> None:
    cards = {
        "ann": "Ac 2d 4h 5d 6s 7s 8c",
        "bob": "Kc Kd 2c Ks Qs Qd 3c",
        "cat": "Qc Qh Th Td Jh Jc 7d",
        "dan": "9c 9d 3h 3d 3s 4c 5c",
    }
    hand = make_hand(cards, stacks={"ann": 100, "bob": 100, "cat": 100, "dan": 9})
    play(hand, "bring-in", "call", "call", "call", *["check"] * 8)
    assert hand.street == 6 and hand.actor_name == "dan"
    play(hand, "bet", "call", "call", "call")  # dan all-in for 6 (of 10)
    assert hand.is_all_in(3) and hand.street == 7
    # The best board left is cat's jacks and tens (PokerKit's choice); rule 9 says ann,
    # the next player clockwise from dan who can act.
    assert hand.first_actors[7] == 0


# ------------------------------------------------------------------ rule 10


def _call_down(hand: Hand) -> None:
    while not hand.is_over:
        options = legal(hand)
        hand.act("bring-in" if "bring-in" in options else "call" if "call" in options else "check")


def test_rule_10_community_card_when_the_deck_runs_short() -> None:
    names = [f"p{i}" for i in range(8)]
    hand = Hand(stakes=Stakes(), names=names, stacks=[100] * 8, dealer=DeckDealer(Deck.from_cards(ALL_CARDS)))
    _call_down(hand)
    # 8 x 6 = 48 cards by sixth street, 4 left for 8 players: one card in the middle.
    assert hand.community == ALL_CARDS[48]
    assert [len(c) for c in hand.cards] == [6] * 8
    assert sum(isinstance(e, CommunityCardDealt) for e in hand.events) == 1
    assert hand.dealt_count == 49
    assert sum(hand.stacks) == 800


def test_rule_10_no_community_card_with_seven_players() -> None:
    names = [f"p{i}" for i in range(7)]
    hand = Hand(stakes=Stakes(), names=names, stacks=[100] * 7, dealer=DeckDealer(Deck.from_cards(ALL_CARDS)))
    _call_down(hand)
    assert hand.community is None and [len(c) for c in hand.cards] == [7] * 7


def test_rule_10_every_player_uses_the_community_card() -> None:
    names = [f"p{i}" for i in range(8)]
    # Rig the deck so that the community card (the 49th card) gives p0 a flush.
    order = list(ALL_CARDS)
    hand = Hand(stakes=Stakes(), names=names, stacks=[100] * 8, dealer=DeckDealer(Deck.from_cards(order)))
    _call_down(hand)
    from engine import best_high

    for seat in range(8):
        used = best_high(hand.all_cards(seat))
        assert len(hand.all_cards(seat)) == 7
        assert used.value == hand.high_value(seat)


def test_rule_5_a_player_who_leaves_is_checked_or_folded() -> None:
    hand = make_hand({"ann": "Ac Ad 9h 8h", "bob": "Kc Kd 2c 3d", "cat": "Qc Qd Ts 4s"})
    assert hand.default_action().value == "bring-in"  # the forced bet is still posted
    play(hand, "bring-in")
    assert hand.default_action().value == "fold"  # facing the bring-in
    play(hand, "call", "call")
    assert hand.default_action().value == "check"  # checking is free on fourth street
