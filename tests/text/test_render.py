"""The bot's texts: hand strength for every shape of three and four cards, and the board."""

from __future__ import annotations

import pytest

from bot.core.i18n import translator
from bot.text.render import strength
from engine import parse_cards


@pytest.mark.parametrize("cards,high", [
    ("Kc Kd Ks", "three kings"), ("Kc Kd", "pair of kings"), ("Kc Kd Ks Kh", "four kings"),
    ("Kc Kd 2s 2h", "two pair, kings and twos"), ("Kc Kd 2s", "pair of kings"), ("Ac 7d 2s", "ace high"),
    ("9c 9d 9s 4h", "three nines"), ("Ac", "ace high"),
])
def test_strength_of_early_hands(cards: str, high: str) -> None:
    assert strength(parse_cards(cards)).startswith(f"High: {high} · ")


LOW_STREETS = ("Ac Kd 9s", "Ac Kd 9s 5h", "Ac Kd 9s 5h 8c", "Ac Kd 9s 5h 8c 2d", "Ac Kd 9s 5h 8c 2d 7h")
"""One player's hand street by street: a low card on third, three on fifth, made on seventh."""


@pytest.mark.parametrize("lang,progress", [
    ("en", ["no low yet", "no low yet", "drawing to 8-5-A", "drawing to 8-5-2-A", "Low: 8-7-5-2-A"]),
    ("ru", ["лоу пока нет", "лоу пока нет", "дро на лоу 8-5-A", "дро на лоу 8-5-2-A", "Лоу: 8-7-5-2-A"]),
    ("pl", ["jeszcze bez low", "jeszcze bez low", "ciągniesz do low 8-5-A", "ciągniesz do low 8-5-2-A",
            "Low: 8-7-5-2-A"]),
])
def test_the_low_line_street_by_street(lang: str, progress: list[str]) -> None:
    tr = translator(lang)
    lines = [strength(parse_cards(cards), tr) for cards in LOW_STREETS]
    assert [line.split(" · ")[1] for line in lines] == progress
    assert all(" · " in line and "(" not in line for line in lines)  # no "1 to a low (5)" any more


@pytest.mark.parametrize("lang,none,wheel", [("en", "no low", "Low: wheel"), ("ru", "лоу нет", "Лоу: колесо"),
                                             ("pl", "brak low", "Low: koło")])
def test_no_low_once_it_cannot_be_made_and_the_wheel(lang: str, none: str, wheel: str) -> None:
    tr = translator(lang)
    # three high cards on third street: four to come cannot make five low ranks
    assert strength(parse_cards("Kc Qd Jh"), tr).endswith(f" · {none}")
    # two low ranks and a pair on fifth street: two cards to come make four at best
    assert strength(parse_cards("Ac 2d Kh Ks 2c"), tr).endswith(f" · {none}")
    # the same two low ranks on fourth street may still come: not yet
    assert not strength(parse_cards("Ac 2d Kh Ks"), tr).endswith(f" · {none}")
    # four low ranks on sixth street, one card to come: still a draw; missed on seventh: none
    assert strength(parse_cards("Ac 2d 4h 7s Kc Kd"), tr).split(" · ")[1] == tr("low.drawing", ranks="7-4-2-A")
    assert strength(parse_cards("Ac 2d 4h 7s Kc Kd 9h"), tr).endswith(f" · {none}")
    # a paired low card counts once
    assert strength(parse_cards("Ac Ad 2h 2s 3c 3d 9h"), tr).endswith(f" · {none}")
    assert strength(parse_cards("Ac 2d 3h 4s 5c Kd Kh"), tr).endswith(f" · {wheel}")
