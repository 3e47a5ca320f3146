"""The site's authentication backend: Django's ``ModelBackend``, with the logged-in user of each
request read by one hand-written query (:mod:`core.rows`) instead of the ORM's, which cost several
times its CPU on every request. Log-in, permissions and the "is active" check are Django's own.
"""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model
from django.core.exceptions import ValidationError
from django.db import connections, router

from core.rows import Columns

_columns: Columns | None = None


def _user_columns() -> Columns:
    global _columns
    if _columns is None or _columns.model is not get_user_model():
        _columns = Columns(get_user_model(), "u")
    return _columns


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        columns = _user_columns()
        model = columns.model
        using = router.db_for_read(model)
        connection = connections[using]
        q = connection.ops.quote_name
        try:
            pk = model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        low, high = connection.ops.integer_field_range(model._meta.pk.get_internal_type())
        if not isinstance(pk, int) or not low <= pk <= high:  # no such row (as the ORM says)
            return None
        user = columns.get(f"u.{q(model._meta.pk.column)} = %s", [pk], using=using)
        if user is None:
            return None
        return user if self.user_can_authenticate(user) else None
