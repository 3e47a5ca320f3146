"""The dama_learn web site (Django project)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
