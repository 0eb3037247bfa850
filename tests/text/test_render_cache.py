"""What the text renderers remember (per language, stakes, ranks) never shows a reader the wrong text.

The board, the labels and the stakes line are remembered per translator and values, a hand's
strength line per language and ranks of the cards: drawing the same thing in English, Russian
and Polish in turn, or after the stakes change, must give what a first drawing gives.
"""

from __future__ import annotations

import random

import pytest

from bot.core.i18n import LANGUAGES, Translator, translator
from bot.core.model import Table
from bot.text import handnames, render
from engine import ALL_CARDS, Action, Card, Deck, DeckDealer, Hand, Stakes, best_high, parse_cards

PINNED = {
    "en": ("Hand #7 · Stud Hi-Lo · third street · ante 1, bring-in 2, bets 5/10, timer 30s\nPot 4\n"
           "  Ann    79  🂠 🂠 J♣               bet 20\n"
           "  Bob     0  🂠 🂠 4♥               all-in · bet 3\n"
           "→ Cat    84  🂠 🂠 10♣              bet 15\n"
           "  Dan    94  🂠 🂠 3♥               folded · bet 5\n"
           "Cat to act (12s): call 5 · fold · raise to 25",
           [("Call 5", "call @7.6"), ("Fold", "fold @7.6"), ("Raise to 25", "raise @7.6"), ("Join", "join"),
            ("My cards", "cards")],
           "Hand #7, your cards: [5♦] [9♦] J♣\nHigh: jack high · no low yet"),
    "ru": ("Раздача №7 · Стад хай-лоу · третий стрит · анте 1, бринг-ин 2, ставки 5/10, таймер 30 с\nБанк 4\n"
           "  Ann    79  🂠 🂠 J♣               ставка 20\n"
           "  Bob     0  🂠 🂠 4♥               олл-ин · ставка 3\n"
           "→ Cat    84  🂠 🂠 10♣              ставка 15\n"
           "  Dan    94  🂠 🂠 3♥               пас · ставка 5\n"
           "Ходит Cat (12 с): колл 5 · пас · рейз до 25",
           [("Колл 5", "call @7.6"), ("Пас", "fold @7.6"), ("Рейз до 25", "raise @7.6"), ("Сесть", "join"),
            ("Мои карты", "cards")],
           "Раздача №7, ваши карты: [5♦] [9♦] J♣\nХай: старшая карта валет · лоу пока нет"),
    "pl": ("Rozdanie nr 7 · Stud Hi-Lo · trzecia ulica · ante 1, bring-in 2, stawki 5/10, zegar 30 s\nPula 4\n"
           "  Ann    79  🂠 🂠 J♣               zakład 20\n"
           "  Bob     0  🂠 🂠 4♥               all-in · zakład 3\n"
           "→ Cat    84  🂠 🂠 10♣              zakład 15\n"
           "  Dan    94  🂠 🂠 3♥               pas · zakład 5\n"
           "Cat, twój ruch (12 s): sprawdzam 5 · pas · podbijam do 25",
           [("Sprawdzam 5", "call @7.6"), ("Pas", "fold @7.6"), ("Podbijam do 25", "raise @7.6"),
            ("Usiądź", "join"), ("Moje karty", "cards")],
           "Rozdanie nr 7, twoje karty: [5♦] [9♦] J♣\nHigh: wysoka karta walet · jeszcze bez low"),
}
"""One board (a bet, an all-in, a fold) and Ann's own cards, as the renderers drew them before
anything was remembered."""


def forget() -> None:
    """Empty every cache of the text renderers: what follows is drawn as the first time."""
    render._words.cache_clear()
    render._stakes_text.cache_clear()
    render._label.cache_clear()
    render._title.cache_clear()
    handnames._STRENGTHS.clear()
    handnames._LOWS.clear()
    handnames._high_name.cache_clear()
    handnames._named.cache_clear()


def scene() -> tuple[Table, Hand, list[str]]:
    """Third street, four players: Ann completes and raises, Bob is all-in, Dan folds, Cat to act."""
    names = ["Ann", "Bob", "Cat", "Dan"]
    stakes = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)
    hand = Hand(stakes=stakes, names=names, stacks=[100, 4, 100, 100],
                dealer=DeckDealer(Deck.shuffled(rng=random.Random(3))))
    for _ in range(6):
        legal = hand.legal_actions()
        pick = [a for a in legal if a in (Action.COMPLETE, Action.RAISE, Action.BET)] \
            or [a for a in legal if a in (Action.CALL, Action.BRING_IN)]
        if hand.actor == 3 and Action.FOLD in legal:  # Dan brings in, then folds
            pick = [Action.FOLD]
        hand.act(pick[0])
    table = Table(id=1, platform="console", community="c", channel="ch", creator="u", stakes=stakes, timer=30,
                  hand_no=7)
    return table, hand, names


def drawn(table: Table, hand: Hand, names: list[str], tr: Translator) -> tuple[str, list[tuple[str, str]], str]:
    text, buttons = render.board(table, hand, names=names, turn="7.6", seconds_left=12, tr=tr)
    return text, [(b.label, b.command) for b in buttons], render.private_view(hand, 0, hand_no=7, tr=tr)


def test_the_same_board_in_three_languages_in_turn_is_the_board_drawn_afresh() -> None:
    table, hand, names = scene()
    for lang in [*LANGUAGES, *reversed(LANGUAGES), "ru", "en", "ru", "pl", "pl", "en"]:
        assert drawn(table, hand, names, translator(lang)) == PINNED[lang], lang
    for lang in LANGUAGES:
        forget()
        assert drawn(table, hand, names, translator(lang)) == PINNED[lang], lang


def test_new_stakes_or_timer_redraw_the_title_and_the_labels() -> None:
    table, hand, names = scene()
    before = {lang: drawn(table, hand, names, translator(lang)) for lang in LANGUAGES}
    table.stakes, table.timer = Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20), 60
    for lang in LANGUAGES:
        text = drawn(table, hand, names, translator(lang))[0]
        assert text != before[lang][0]
        forget()
        assert text == drawn(table, hand, names, translator(lang))[0]
    assert "ante 2, bring-in 5, bets 10/20, timer 60s" in drawn(table, hand, names, translator("en"))[0]
    table.stakes, table.timer = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10), 30
    assert {lang: drawn(table, hand, names, translator(lang)) for lang in LANGUAGES} == before
    # the same labels for other amounts: the amounts are part of what is remembered
    other = Hand(stakes=Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20), names=names, stacks=[100] * 4,
                 dealer=DeckDealer(Deck.shuffled(rng=random.Random(3))))
    assert [label for _, label in render.action_options(other, translator("en"))] == ["Bring-in 5", "Complete to 10"]
    assert [label for _, label in render.action_options(other, translator("pl"))] != \
        [label for _, label in render.action_options(other, translator("en"))]


@pytest.mark.parametrize("first,second,high", [
    # the same ranks and suit counts, one a straight flush, the other a flush (and a straight)
    ("5h 6h 7h 8h 9h Tc Jc", "5h 6h 7h 8h Th 9c Jc", ("straight flush, nine high", "flush, ten high")),
    # the same ranks, a flush with one of the suits and not with the other
    ("2h 4h 6h 9h Jh Kc", "2h 4h 6h 9h Jc Kh", ("flush, jack high", "flush, king high")),
    ("2h 4h 6h 9h Jh", "2h 4h 6h 9h Jc", ("flush, jack high", "jack high")),
])
def test_a_hand_s_strength_tells_flushes_apart_whatever_was_named_before(first: str, second: str,
                                                                        high: tuple[str, str]) -> None:
    en = translator("en")
    for cards, name in ((first, high[0]), (second, high[1]), (first, high[0])):
        assert handnames.strength(en, parse_cards(cards)).startswith(f"High: {name} · "), cards


def named_afresh(tr: Translator, cards: list[Card]) -> str:
    """The strength line from the public parts, nothing remembered but the names of hands."""
    high = handnames.high_name(tr, best_high(cards)) if len(cards) >= 5 else handnames.partial_high(tr, cards)
    return tr("strength.line", high=high, low=handnames.low_status(tr, cards))


def test_strength_in_turn_in_every_language_is_the_line_named_afresh() -> None:
    rng = random.Random(14)
    hands = [rng.sample(ALL_CARDS, rng.randint(1, 8)) for _ in range(3000)]
    hands += [list(h) for h in hands[:500]]  # the same hands again, now remembered
    hands += [parse_cards(c) for c in ("Ac 2d 3h 4s 5c Kd Kh", "Ac 2d 3h 4s Kc", "Ac 2d 3h 4s Kc Kd Qh",
                                       "Ac 2d 3h Kc Kd", "Ac 2d 3h Kc Kd Qh", "8c 7d 6h 5s 4c")]
    for i, cards in enumerate(hands):
        for lang in (LANGUAGES[i % 3], LANGUAGES[(i + 1) % 3]):
            tr = translator(lang)
            assert handnames.strength(tr, cards) == named_afresh(tr, cards), (lang, cards)
    assert handnames._STRENGTHS and handnames._LOWS  # remembered indeed


def test_the_translator_fills_plain_fields_and_fields_in_the_reader_s_words() -> None:
    ru = translator("ru")
    assert ru("did.call", name="Ann", amount=5, total=5) == "Ann коллирует 5"
    assert ru("line.uncalled", chips=render.chips_field(5), name="Ann") == \
        ru("line.uncalled", chips="5 фишек", name="Ann")
    assert translator("pl")("line.uncalled", chips=render.chips_field(2), name="Ann") == \
        translator("pl")("line.uncalled", chips="2 żetony", name="Ann")
    assert ru("state.folded") == "пас"


def test_labels_sum_the_total_as_the_engine_does_at_every_turn() -> None:
    rng = random.Random(15)
    for n in range(2, 9):
        stacks = [rng.choice([3, 12, 60]) for _ in range(n)]  # short stacks: all-ins cap the amounts
        hand = Hand(stakes=Stakes(), names=[f"p{i}" for i in range(n)], stacks=stacks,
                    dealer=DeckDealer(Deck.shuffled(rng=rng)))
        while True:
            for action in Action:
                assert render._total_after(hand, hand.amount_of(action)) == hand.total_after(action)
            if hand.is_over:
                break
            hand.act(rng.choice(hand.legal_actions()))


def test_faces_by_index_show_up_cards_and_hide_down_ones_to_seventh_street() -> None:
    rng = random.Random(16)
    names = ["Ann", "Bob", "Cat"]
    hand = Hand(stakes=Stakes(), names=names, stacks=[500] * 3, dealer=DeckDealer(Deck.shuffled(rng=rng)))
    while not hand.is_over:
        legal = hand.legal_actions()
        hand.act(next(a for a in (Action.CHECK, Action.CALL, Action.BRING_IN) if a in legal))
        table = Table(id=1, platform="console", community="c", channel="ch", creator="u", stakes=Stakes(), timer=30)
        for lang in LANGUAGES:
            tr = translator(lang)
            rows = render.board(table, hand, names=names, turn="1.1", seconds_left=None, tr=tr)[0].splitlines()[2:5]
            for seat, row in enumerate(rows):
                cards = hand.cards[seat]
                expected = [c.pretty if 2 <= i <= 5 else render.BACK for i, c in enumerate(cards)]
                assert row[1:].split()[2:2 + len(cards)] == expected, row  # after the marker, name, stack
                own = render.private_view(hand, seat, hand_no=1, tr=tr).splitlines()[0]
                assert own.endswith(" ".join(f"[{c.pretty}]" if i in (0, 1, 6) else c.pretty
                                             for i, c in enumerate(cards)))
    assert [len(c) for c in hand.cards] == [7, 7, 7]  # checked and called down to seventh street
