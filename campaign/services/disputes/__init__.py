"""Disputes: voiding an entry, players' void requests and the GM's answers, and the words of a
refusal.
"""
