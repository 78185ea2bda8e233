"""Fixtures of the integration tests: group mode's (tests/integration/group_support.py)."""

from tests.integration.group_support import group, owned_group, owned_template  # noqa: F401 (fixtures)
