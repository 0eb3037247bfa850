"""Drawing odds for the house bots (bot/table/housebot.py, bot/table/razzbot.py)."""

from __future__ import annotations


def p_make(need: int, draws: int, outs: float, unseen: int, per_hit: float) -> float:
    """Chance to catch ``need`` more useful cards in ``draws`` cards (outs shrink per hit)."""
    if need <= 0:
        return 1.0
    if draws < need or outs <= 0 or unseen <= 0:
        return 0.0
    p = min(1.0, outs / unseen)
    hit = p_make(need - 1, draws - 1, outs - per_hit, unseen - 1, per_hit)
    miss = p_make(need, draws - 1, outs, unseen - 1, per_hit) if draws - 1 >= need else 0.0
    return p * hit + (1.0 - p) * miss
