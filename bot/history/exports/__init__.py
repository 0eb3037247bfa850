"""Hand-history exports of finished hands: PokerStars text and PHH (issue 12).

Pure functions of an :class:`engine.Hand` and a :class:`HandMeta` (hand number, table,
time, viewer, names): standard library and ``engine`` only, no I/O.
"""

from bot.history.exports.common import ExportError, HandMeta, Tournament, safe_name, safe_names
from bot.history.exports.phh import phh_text
from bot.history.exports.pokerstars import pokerstars_text

__all__ = ["ExportError", "HandMeta", "Tournament", "phh_text", "pokerstars_text", "safe_name", "safe_names"]
