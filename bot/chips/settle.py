"""The fewest payments that settle a session's nets (pure: no store, no words).

Each participant's net is what they are up (> 0, they are owed) or down (< 0, they owe); the nets add up
to zero. :func:`settle` returns payments, each from one who owes to one who is owed, that bring every
net to zero exactly, in whole chips, and never more than (participants with a non-zero net) - 1 of them.

How: the participants are cut into as many groups as possible whose nets add up to zero (two whose nets
cancel out are a group; the rest are cut exactly, over every cut, for up to :data:`EXACT_UP_TO` of them,
else they are one group); each
group of ``k`` is settled by ``k - 1`` payments, the largest debtor paying the largest creditor as much
as one of them needs. A group of ``k`` needs ``k - 1`` payments at least (each payment closes at most one
more net, and the last one closes two), so, with the best cut, the count is the least there is.

>>> settle({"ann": 35, "bob": -35})
[Payment(payer='bob', payee='ann', chips=35)]
>>> settle({"ann": 50, "bob": -20, "cat": -30, "dan": 10, "eve": -10})
[Payment(payer='cat', payee='ann', chips=30), Payment(payer='bob', payee='ann', chips=20), \
Payment(payer='eve', payee='dan', chips=10)]
>>> settle({"ann": 0, "bob": 0})
[]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

EXACT_UP_TO = 12
"""The most participants with a non-zero net cut into zero-sum groups exactly (2^n subsets are weighed, in
a few milliseconds); beyond it, pairs that cancel out are settled apart and the rest as one group: still at
most n - 1 payments."""


@dataclass(frozen=True, slots=True)
class Payment:
    """``payer`` pays ``payee`` ``chips`` (> 0)."""

    payer: str
    payee: str
    chips: int


def settle(nets: Mapping[str, int]) -> list[Payment]:
    """The payments that bring every net in ``nets`` (adding up to zero) to zero; see the module."""
    if sum(nets.values()) != 0:
        raise ValueError(f"the nets do not add up to zero: {dict(nets)}")
    owed = sorted((name for name, net in nets.items() if net), key=lambda name: (-abs(nets[name]), name))
    payments: list[Payment] = []
    for group in _zero_groups([nets[name] for name in owed]):
        payments += _greedy({owed[i]: nets[owed[i]] for i in group})
    return sorted(payments, key=lambda p: (-p.chips, p.payer, p.payee))  # the largest first


def _greedy(nets: Mapping[str, int]) -> list[Payment]:
    """One zero-sum group settled: the largest debtor pays the largest creditor what one of them needs
    (each payment closes at least one net, the last closes two: at most len - 1 payments)."""
    left = dict(nets)
    payments: list[Payment] = []
    while True:
        debtors = [name for name, net in left.items() if net < 0]
        creditors = [name for name, net in left.items() if net > 0]
        if not debtors:
            assert not creditors
            return payments
        payer = min(debtors, key=lambda name: (left[name], name))
        payee = max(creditors, key=lambda name: (left[name], [-ord(c) for c in name]))
        chips = min(-left[payer], left[payee])
        payments.append(Payment(payer=payer, payee=payee, chips=chips))
        left[payer] += chips
        left[payee] -= chips


def _zero_groups(values: Sequence[int]) -> list[list[int]]:
    """The indexes of ``values`` (non-zero, adding up to zero) cut into as many zero-sum groups as
    possible (exactly up to :data:`EXACT_UP_TO` values besides the pairs that cancel out)."""
    pairs: list[list[int]] = []
    waiting: dict[int, list[int]] = {}
    rest: list[int] = []
    for i, v in enumerate(values):  # a pair that cancels out is a group in some best cut: take them first
        if waiting.get(-v):
            pairs.append([waiting[-v].pop(), i])
        else:
            waiting.setdefault(v, []).append(i)
    rest = sorted(i for left in waiting.values() for i in left)
    if not rest:
        return pairs
    if len(rest) > EXACT_UP_TO:
        return [*pairs, rest]
    return pairs + [[rest[i] for i in group] for group in _best_cut([values[i] for i in rest])]


def _best_cut(values: Sequence[int]) -> list[list[int]]:
    """The indexes of ``values`` cut into as many zero-sum groups as there can be (2^n subsets weighed)."""
    n = len(values)
    full = (1 << n) - 1
    total = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + values[low.bit_length() - 1]
    # best[mask]: the most zero-sum groups the values of ``mask`` (itself adding up to zero) split into,
    # grown one value at a time: taking values in any order, a group closes whenever the sum comes to zero.
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        m, most = mask, 0
        while m:
            low = m & -m
            most = max(most, best[mask ^ low])
            m ^= low
        best[mask] = most + (1 if total[mask] == 0 else 0)
    # Read the groups back: remove values one at a time along a best path; a group ends at each zero sum.
    groups: list[list[int]] = []
    current: list[int] = []
    mask = full
    while mask:
        need = best[mask] - (1 if total[mask] == 0 else 0)
        m = mask
        while m:
            low = m & -m
            if best[mask ^ low] == need:
                break
            m ^= low
        index = low.bit_length() - 1
        current.append(index)
        mask ^= low
        if total[mask] == 0:
            groups.append(sorted(current))
            current = []
    return groups
