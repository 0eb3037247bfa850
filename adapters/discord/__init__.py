"""Discord: slash commands and buttons in, one board per channel and DMs out (discord.py ~=2.7).

The adapter holds no game rules: every interaction becomes a command string for
:meth:`bot.app.StudBot.handle`, and every board, line and private message of
the bot becomes a Discord message. See :mod:`adapters.discord.adapter`.
"""
