"""Between the bot and the chat platforms: output routed and coalesced (outbox), and updates applied once."""
