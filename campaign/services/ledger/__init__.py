"""The ledger as a whole: history and its views, verification, proofs, rebuilds, export and
import, and the luck statistics read from it.
"""
