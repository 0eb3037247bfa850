"""The errors a user is shown: a catalog key and its fields, written in the user's language when answered.

Two kinds, answered differently by the funnel (bot/app.py): a :class:`UsageError` (the input
is malformed: its usage text) and a :class:`Refusal` (well formed, but it cannot be done now:
the reason). Neither changes anything.

>>> str(UsageError("usage.empty"))
'empty command. Try: help'
>>> Refusal("refuse.turn_over", code="turn_over").code
'turn_over'
"""

from __future__ import annotations

from bot.core.i18n import EN, Translator


class UserError(Exception):
    """A message for the user as a catalog key and its fields, written in their language later.

    A field may be a function of the translator (``lambda tr: chips(5, tr)``) for parts
    that need words of the language. ``str()`` is the English text.
    """

    def __init__(self, key: str, /, **fields: object) -> None:
        self.key = key
        self.fields = fields
        super().__init__(self.text(EN))

    def text(self, tr: Translator) -> str:
        return tr(self.key, **self.fields)


class UsageError(UserError, ValueError):
    """Malformed input: answered with usage text, changes nothing."""


class Refusal(UserError):
    """A friendly reason why a well-formed command cannot be done now (a catalog key and its fields).

    ``code`` is a stable word for the platforms (``'turn_over'``: an old board's button), or ``''``.
    """

    def __init__(self, key: str, /, *, code: str = "", **fields: object) -> None:
        super().__init__(key, **fields)
        self.code = code
