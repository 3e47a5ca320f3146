"""Every address of the site, read from the URLconf (so a view added later is covered at once).

``site_routes()`` walks ``dama_learn.urls`` and gives each pattern as a :class:`Route`: its full
route, its namespaced name and a concrete URL built with sample values for its converters.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404

#: sample values per converter type (enough for the resolver to match; the view may 404 on them)
SAMPLES = {
    "variant": "czech",
    "int": "1",
    "uuid": str(uuid.UUID(int=1)),
    "slug": "sample",
    "str": "sample",
    "path": "1",
}
_PARAM = re.compile(r"<(?:(?P<conv>[^>:]+):)?(?P<name>\w+)>")


@dataclass(frozen=True)
class Route:
    route: str  # e.g. "puzzles/<variant:variant>/<int:pk>/"
    name: str  # e.g. "puzzles:solve" ("" for unnamed admin patterns)
    url: str  # e.g. "/puzzles/czech/1/"

    @property
    def is_admin(self) -> bool:
        return self.route.startswith("admin/")


def _walk(resolver: URLResolver, prefix: str = "", namespace: str = ""):
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            ns = namespace
            if pattern.namespace:
                ns = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
            yield from _walk(pattern, prefix + str(pattern.pattern), ns)
        elif isinstance(pattern, URLPattern):
            name = f"{namespace}:{pattern.name}" if namespace and pattern.name else pattern.name
            yield prefix + str(pattern.pattern), name or ""


def _concrete(route: str) -> str | None:
    if "^" in route or "$" in route or "(?P" in route:
        return None  # a regular expression (the admin's app index and catch-all): not sampled
    return "/" + _PARAM.sub(lambda m: SAMPLES.get(m.group("conv") or "str", "sample"), route)


def site_routes(*, admin: bool = True) -> list[Route]:
    routes = []
    for route, name in _walk(get_resolver()):
        url = _concrete(route)
        if url is None:
            continue
        try:
            resolve(url)
        except Resolver404:
            continue
        item = Route(route, name, url)
        if admin or not item.is_admin:
            routes.append(item)
    return routes


def url_names(*, admin: bool = False) -> set[str]:
    """The names of every (non-admin, unless asked) pattern of the site."""
    return {r.name for r in site_routes(admin=admin) if r.name}
