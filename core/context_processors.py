"""Values every page needs: the variants, the visitor's current one, and switcher links.

They are worked out only when a template uses them (``SimpleLazyObject``): a whole page does, in
``base.html``; an htmx answer (a move, a hint, a lesson's check) renders a region without them,
and then neither reads the visitor's variant (which may read their profile) nor reverses the
switcher's links."""

from __future__ import annotations

from functools import cache

from django.urls import NoReverseMatch, reverse
from django.utils.functional import SimpleLazyObject

from .variants import VARIANTS, current_variant


def site(request):
    match = getattr(request, "resolver_match", None)
    variant_in_url = match.kwargs.get("variant") if match else None
    # a course of every variant (the comparison course) is not a page of the visitor's variant
    all_variants = variant_in_url is not None and variant_in_url not in VARIANTS

    @cache
    def current() -> str:
        return variant_in_url if variant_in_url in VARIANTS else current_variant(request)

    def link(name: str) -> str:
        if match and variant_in_url is not None and match.view_name != "board_move":
            try:
                return reverse(match.view_name, kwargs={**match.kwargs, "variant": name})
            except NoReverseMatch:
                pass
        return f"{reverse('home')}?variant={name}"

    return {
        "variants": list(VARIANTS.values()),
        "current_variant": SimpleLazyObject(lambda: VARIANTS[current()]),
        "all_variants_page": all_variants,
        "variant_links": SimpleLazyObject(
            lambda: [
                (v, link(v.name), v.name == current() and not all_variants)
                for v in VARIANTS.values()
            ]
        ),
    }
