"""The table's web page (`campaign serve`): read-only pages, a live feed and the chain.

Routes call services and render Jinja templates; there is no SQL and no rule here.
Starlette, Jinja2 and uvicorn are the optional extra `campaign[web]`, imported only by
the `serve` command, so the CLI's start-up never pays for them.
"""
