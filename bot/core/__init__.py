"""The kernel every part of the bot stands on: ports, model, settings, clocks, languages, names, errors, limits."""
