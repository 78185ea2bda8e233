"""Rolls and rule checks that apply their results: dice rolls, success rolls, the 2d6 checks,
fright checks and their lasting effects, recovery, tables and the reference.
"""
