"""The site's session store: Django's database sessions, read by one hand-written query.

Every request of a logged-in player or of a visitor with progress reads its session row first;
the ORM spent several times the CPU of the query on building it (README "Hardening"). Writing,
creating, expiring and deleting are Django's own (``SESSION_ENGINE = "core.sessions"``), and so
is the table: sessions made by ``django.contrib.sessions.backends.db`` stay valid.
"""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        key = self.session_key
        if not key:
            return None
        model = self.model
        connection = connections[router.db_for_read(model)]
        q = connection.ops.quote_name
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {q('session_data')} FROM {q(model._meta.db_table)}"
                f" WHERE {q('session_key')} = %s AND {q('expire_date')} > %s",
                [key, connection.ops.adapt_datetimefield_value(timezone.now())],
            )
            row = cursor.fetchone()
        if row is None:  # unknown or expired: a new key is made when the session is saved
            self._session_key = None
            return None
        return model(session_key=key, session_data=row[0])
