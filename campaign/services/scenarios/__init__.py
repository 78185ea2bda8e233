"""Scenarios: starting and ending them (awards, reunion checks), their views, and the missing
characters with the search parties out looking for them.
"""
