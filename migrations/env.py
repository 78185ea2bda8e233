"""Alembic environment: runs on the connection the campaign runner hands over."""

from alembic import context

from campaign.db.models import Base

config = context.config
connection = config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=True,
    compare_type=True,
    on_version_apply=config.attributes.get("on_version_apply"),  # campaign.db.migrate counts the steps
)
with context.begin_transaction():
    context.run_migrations()
