"""The bot's texts: hand strength for every shape of three and four cards, and the board."""

from __future__ import annotations

import pytest

from bot.render import strength
from engine import parse_cards


@pytest.mark.parametrize("cards,high", [
    ("Kc Kd Ks", "three kings"), ("Kc Kd", "pair of kings"), ("Kc Kd Ks Kh", "four kings"),
    ("Kc Kd 2s 2h", "two pair, kings and twos"), ("Kc Kd 2s", "pair of kings"), ("Ac 7d 2s", "ace high"),
    ("9c 9d 9s 4h", "three nines"), ("Ac", "ace high"),
])
def test_strength_of_early_hands(cards: str, high: str) -> None:
    assert strength(parse_cards(cards)).startswith(f"High: {high} · Low:")


def test_strength_low_draw_and_made_low() -> None:
    assert strength(parse_cards("Ac 2d 5s")) == "High: ace high · Low: 3 to a low (5-2-A)"
    assert strength(parse_cards("Ac 2d 5s 9h Kd")).endswith("Low: 3 to a low (5-2-A)")
    assert strength(parse_cards("Ac 2d 5s 7h 8d")).endswith("Low: 8-7-5-2-A low")
    assert strength(parse_cards("Ac 2d 5s 9h Kd Qc Jc")).endswith("Low: none")
