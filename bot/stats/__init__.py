"""Player stats per community, computed from settled hands.

:mod:`bot.stats.rows` turns a settled hand into one row per player (written in the
settlement's transaction, and backfilled for older hands by the migration);
:mod:`bot.stats.book` queries them; :mod:`bot.stats.answers` answers ``stats`` and
``top net``; :mod:`bot.stats.chart` draws a player's net chips over their hands.
"""
