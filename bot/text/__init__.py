"""Words in and out: the command grammar, and the text and pictures the bot answers with, in every language."""
