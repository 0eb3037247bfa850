import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# The end-to-end harnesses assert too: let pytest explain their failures as it does a test's.
pytest.register_assert_rewrite("discord_harness", "telegram_harness")
