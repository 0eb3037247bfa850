"""The fewest payments that settle a session (bot/chips/settle.py), and the settle-up's words."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.chips.settle import Payment, settle
from bot.core.i18n import translator
from bot.table.session import HOUSE_BOTS, Due, Ledger, Line, Money, SettleUp
from bot.table.settling import (
    CSV_COLUMNS,
    buttons,
    dues_text,
    ledger_csv,
    ledger_picture,
    ledger_text,
    settle_up_text,
)


@st.composite
def zero_sum_nets(draw: st.DrawFn) -> dict[str, int]:
    """Nets of up to 12 players adding up to zero (some zero, some equal, some cancelling in pairs)."""
    values = draw(st.lists(st.integers(-500, 500), min_size=1, max_size=11))
    values.append(-sum(values))
    return {f"p{i}": v for i, v in enumerate(values)}


def _check(nets: dict[str, int], payments: list[Payment]) -> None:
    left = dict(nets)
    for p in payments:
        assert p.chips > 0 and isinstance(p.chips, int) and p.payer != p.payee
        assert nets[p.payer] < 0 < nets[p.payee], "only one who owes pays, only one who is owed is paid"
        left[p.payer] += p.chips
        left[p.payee] -= p.chips
    assert all(v == 0 for v in left.values()), left
    nonzero = sum(1 for v in nets.values() if v)
    assert len(payments) <= max(nonzero - 1, 0)


@settings(max_examples=400, deadline=None)
@given(zero_sum_nets())
def test_the_payments_settle_every_net_exactly_in_at_most_nonzero_minus_one(nets: dict[str, int]) -> None:
    _check(nets, settle(nets))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(-300, 300), min_size=1, max_size=3), min_size=1, max_size=3))
def test_groups_that_add_up_to_zero_are_settled_apart(groups: list[list[int]]) -> None:
    """Nets made of k groups that each add up to zero (12 players at most, cut exactly): at most (non-zero
    nets) - k payments."""
    nets: dict[str, int] = {}
    k = 0
    for g, values in enumerate(groups):
        values = [*values, -sum(values)]
        if any(values):
            k += 1
        nets |= {f"g{g}p{i}": v for i, v in enumerate(values)}
    payments = settle(nets)
    _check(nets, payments)
    nonzero = sum(1 for v in nets.values() if v)
    assert len(payments) <= nonzero - k


def test_the_fewest_payments_beat_the_greedy_ones() -> None:
    """Groups that add up to zero are settled apart: fewer payments than the largest debtor paying the largest
    creditor over everyone."""
    nets = {"a": 7, "b": 5, "c": -6, "d": -4, "e": -2}
    assert len(settle(nets)) == 4  # no group adds up to zero but the whole: n - 1
    nets = {"ann": 10, "bob": -10, "cat": 3, "dan": -3}
    assert sorted(settle(nets), key=lambda p: p.payer) == [Payment("bob", "ann", 10), Payment("dan", "cat", 3)]
    nets = {"a": 5, "b": -5, "c": 7, "d": -3, "e": -4}  # the greedy way alone: 4 payments (b pays c first)
    assert len(settle(nets)) == 3 and Payment("b", "a", 5) in settle(nets)
    nets = {"a": 6, "b": -2, "c": -4, "d": 3, "e": -1, "f": -2}  # {a, b, c} and {d, e, f}: 2 + 2
    assert len(settle(nets)) == 4


def test_nets_that_do_not_add_up_are_a_bug() -> None:
    with pytest.raises(ValueError):
        settle({"ann": 5, "bob": -4})


def _settled(lang_money: Money | None = None) -> SettleUp:
    lines = (Line(user="1", name="ann", buy_ins=2, bought=400, cashed=0, stack=435),
             Line(user="2", name="bob", buy_ins=1, bought=200, cashed=165, stack=0),
             Line(user=HOUSE_BOTS, name="", buy_ins=1, bought=200, cashed=200, stack=0))
    ledger = Ledger(table_id=3, no=2, started_at=0.0, ended_at=3600.0, after=10, lines=lines)
    return SettleUp(id=9, ledger=ledger, dues=(Due(seq=1, payer="2", payee="1", chips=35),), ended_by="settle",
                    money=lang_money)


@pytest.mark.parametrize(("lang", "pays", "house", "col"), [
    ("en", "bob pays ann 35 chips", "house bots", "net"),
    ("ru", "bob платит ann 35 фишек", "боты заведения", "итог"),
    ("pl", "bob płaci ann 35 żetonów", "boty kasyna", "wynik"),
])
def test_the_settle_up_in_three_languages(lang: str, pays: str, house: str, col: str) -> None:
    tr = translator(lang)
    text = settle_up_text(_settled(), tr)
    assert pays in text and house in text and col in text
    assert "+35" in text and "-35" in text
    [button] = buttons(_settled(), tr)
    assert button.command == "paid @9.1" and "bob" in button.label and "ann" in button.label


def test_money_next_to_chips() -> None:
    text = dues_text(_settled(Money(Decimal("0.05"), "EUR")), translator("en"))
    assert "bob pays ann 35 chips (1.75 EUR)" in text
    assert "+35 (+1.75 EUR)" in ledger_text(_settled(Money(Decimal("0.05"), "EUR")).ledger, translator("en"),
                                            money=Money(Decimal("0.05"), "EUR"))


def test_a_paid_payment_is_marked_and_none_is_left_open() -> None:
    settled = _settled()
    paid = SettleUp(id=settled.id, ledger=settled.ledger, dues=(Due(seq=1, payer="2", payee="1", chips=35,
                                                                    paid_by="2"),), ended_by="settle", money=None)
    text = dues_text(paid, translator("en"))
    assert "✓ bob pays ann 35 chips (paid)" in text and "All paid" in text
    assert buttons(paid, translator("en")) == ()


def test_the_csv_has_pokernows_columns() -> None:
    rows = list(csv.reader(io.StringIO(ledger_csv(_settled().ledger, translator("en")))))
    assert rows[0] == list(CSV_COLUMNS) == ["player", "player id", "session start", "session end", "buy-ins",
                                            "buy-out", "stack", "net"]
    assert rows[1] == ["ann", "1", "1970-01-01 00:00", "1970-01-01 01:00", "400", "0", "435", "35"]
    assert rows[3][0] == "house bots" and rows[3][-1] == "0"


def test_the_ledger_as_a_picture() -> None:
    settled = _settled(Money(Decimal("0.05"), "EUR"))
    png = ledger_picture(settled.ledger, translator("ru"), money=settled.money,
                         notes=dues_text(settled, translator("ru")).splitlines())
    with Image.open(io.BytesIO(png)) as img:
        assert img.format == "PNG" and img.width == 960 and img.height > 200
