"""A Telegram webhook worker process for the crash tests (tests/slow/test_cluster_webhook_crash.py).

The real bootstrap (``adapters.run``), its settings from the environment (the test aims them at
the fake Bot API, PostgreSQL and ``STUDBOT_INSTANCE``), with the adapter's send rates of the
in-process end-to-end tests (tests/support/telegram_harness.py). ``STUDBOT_KILL_AT`` / ``STUDBOT_KILL_ARMED``
kill it at a named point (bot/core/killpoints.py).
"""

from __future__ import annotations

import adapters.run
from adapters.telegram.adapter import TelegramAdapter

if __name__ == "__main__":  # only in the worker process: pytest imports this module too (for its doctests)
    TelegramAdapter.rate_interval = 0.15
    TelegramAdapter.group_rate = (1000, 60)
    adapters.run.main([])
