"""Bridges to the tools a group already plays on.

Each bridge is pure translation (a format in, plain values out, or the reverse); the
services decide what gets written. ココフォリア (CCFOLIA): character pieces out
(`ccfolia_piece`), chat logs with BCDice results in: `ccfolia_export` tells which export
a file is (and its encoding) and hands its messages over from `ccfolia_log` (the `<p>`
HTML), `ccfolia_article` (v1.37+ HTML) or `ccfolia_json`; `bcdice_lines` reads one
message's dice (`bcdice_tables` its table answers, `bcdice_judge` whether it agrees with
itself, `bcdice_why` the reason a line is not recorded, as a code and values).
"""
