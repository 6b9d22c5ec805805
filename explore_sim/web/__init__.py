"""The web page: ``explore-sim serve`` opens a local page where a player pastes a decklist and
gets the answers of explore, simulate, compare, value, advise, lands and curve as tables and
figures.

Needs the ``web`` extra (``pip install 'explore_sim[web]'``: Starlette, uvicorn, Jinja2 and
python-multipart). :func:`create_app` builds the ASGI application and :func:`serve` runs it.
"""

from __future__ import annotations

from .app import Settings, create_app
from .server import serve

__all__ = ["Settings", "create_app", "serve"]
