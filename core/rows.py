"""Model rows read by hand-written SQL, for the few reads on the hottest paths.

Building and compiling an ORM query costs more CPU than running it: the trainer's attempt lookup
(the attempt joined to its puzzle, with an ``EXISTS`` subquery) took about 2.4 ms of Python per
move to build, against about 0.4 ms for the same row read by plain SQL (README "Hardening").
:class:`Columns` gives the column list of a model for such a query and turns the values back
into a model instance exactly as the ORM does: the backend's and the field's converters, then
``Model.from_db`` (fields left out of the query are deferred, loaded on first access).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connections
from django.db.models import Field, Model


class Columns:
    """The concrete columns of ``model`` (less ``defer``) under the table alias ``alias``."""

    def __init__(self, model: type[Model], alias: str, defer: Iterable[str] = ()) -> None:
        left_out = set(defer)
        self.model = model
        self.alias = alias
        self.fields: list[Field] = [
            f for f in model._meta.concrete_fields if f.name not in left_out
        ]
        self.attnames = [f.attname for f in self.fields]
        self._converters: dict[tuple[str, str], list[tuple[Any, list[Any]]]] = {}

    def __len__(self) -> int:
        return len(self.fields)

    def sql(self, using: str = "default") -> str:
        """``alias."column", ...`` in the order :meth:`load` reads them."""
        quote = connections[using].ops.quote_name
        return ", ".join(f"{self.alias}.{quote(f.column)}" for f in self.fields)

    def get(
        self, where: str, params: Sequence[Any], *, lock: bool = False, using: str = "default"
    ) -> Model | None:
        """The instance of the model's row matching ``where`` (SQL on the alias's columns), or
        None; ``lock``: ``SELECT ... FOR UPDATE`` where the database has it (in a transaction)."""
        connection = connections[using]
        table = connection.ops.quote_name(self.model._meta.db_table)
        sql = f"SELECT {self.sql(using)} FROM {table} {self.alias} WHERE {where}"
        if lock and connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        return None if row is None else self.load(row, using)

    def _converters_for(self, using: str) -> list[tuple[Any, list[Any]]]:
        """Each column's expression and converters (the backend's, then the field's)."""
        connection = connections[using]
        key = (using, connection.vendor)
        converters = self._converters.get(key)
        if converters is None:
            converters = []
            for f in self.fields:
                col = f.get_col(self.alias)
                converters.append(
                    (col, connection.ops.get_db_converters(col) + col.get_db_converters(connection))
                )
            self._converters[key] = converters
        return converters

    def load(self, values: Sequence[Any], using: str = "default") -> Model:
        """The model instance of one row's values (as many as :meth:`sql` lists)."""
        connection = connections[using]
        converted = []
        for value, (col, converters) in zip(values, self._converters_for(using), strict=True):
            for converter in converters:
                value = converter(value, col, connection)
            converted.append(value)
        return self.model.from_db(using, self.attnames, converted)


def update_row(
    model: type[Model],
    where: dict[str, Any],
    values: dict[str, Any],
    *,
    increment: str = "",
    using: str = "default",
) -> int:
    """``UPDATE`` the rows of ``model`` whose fields equal ``where``: set ``values`` (prepared as
    the ORM prepares a save) and add one to the field ``increment``. The number of rows written."""
    connection = connections[using]
    q = connection.ops.quote_name
    sets, params = [], []
    for name, value in values.items():
        f = model._meta.get_field(name)
        if hasattr(f, "get_placeholder"):  # a field the ORM writes with SQL of its own
            raise NotImplementedError(f"{model.__name__}.{name} needs the ORM to be written")
        sets.append(f"{q(f.column)} = %s")
        params.append(f.get_db_prep_save(value, connection))
    if increment:
        column = q(model._meta.get_field(increment).column)
        sets.append(f"{column} = {column} + 1")
    conditions = []
    for name, value in where.items():
        f = model._meta.get_field(name)
        conditions.append(f"{q(f.column)} = %s")
        params.append(f.get_db_prep_value(value, connection))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {q(model._meta.db_table)} SET {', '.join(sets)}"
            f" WHERE {' AND '.join(conditions)}",
            params,
        )
        return cursor.rowcount
