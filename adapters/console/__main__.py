"""``python -m adapters.console``: the console chat (see adapters/console/app.py)."""

from adapters.console.app import main

main()
