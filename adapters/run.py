"""The bootstrap: read the settings, wire the real ports, run what is configured.

With no platform token set it opens the console table against house bots (on
SQLite). ``studbot`` (the console script), ``make run`` and the Procfile all
come here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bot.config import ConfigError, Settings


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    try:
        settings = Settings.from_env(dotenv=Path(".env"))
    except ConfigError as exc:
        print(f"studbot: configuration error: {exc}", file=sys.stderr)
        sys.exit(2)
    platforms = [name for name, token in (("Discord", settings.discord_token), ("Telegram", settings.telegram_token))
                 if token]
    if platforms:
        print(f"studbot: {' and '.join(platforms)} token set, but the {' and '.join(platforms)} adapter is not "
              "part of this build yet; unset the token to play in the console.", file=sys.stderr)
        sys.exit(2)
    from adapters.console.app import main as console_main

    console_main(args)


if __name__ == "__main__":
    main()
