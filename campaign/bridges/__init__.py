"""Bridges to the tools a group already plays on.

Each bridge is pure translation (a format in, plain values out, or the reverse); the
services decide what gets written. ココフォリア (CCFOLIA): character pieces out
(`ccfolia_piece`), chat logs with BCDice results in (`ccfolia_log` reads the HTML,
`bcdice_lines` reads one message's dice).
"""
