"""The table server's use cases: invites and seats, the GM's calls, and the writes a seat makes
(guarded, idempotent).
"""
