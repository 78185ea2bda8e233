"""Provably fair dice: committed seeds, players' shares, verifying the dice, what an import
does with a seed, and players' receipts.
"""
