"""Campaigns themselves: creating and choosing one, group mode on a shared PostgreSQL, the
in-game clock.
"""
