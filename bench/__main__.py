"""``make bench``: hands per second against PokerKit, then evaluations per second."""

from bench.hands import main

main()
