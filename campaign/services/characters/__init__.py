"""Characters and their sheets: the roster, traits, conditions, HP/FP pools, life and death,
names, sheet import and export, presence, and reading a character at a past entry.
"""
