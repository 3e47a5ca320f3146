"""Values every page needs: the variants, the visitor's current one, and switcher links."""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse

from .variants import VARIANTS, current_variant


def site(request):
    match = getattr(request, "resolver_match", None)
    variant_in_url = match.kwargs.get("variant") if match else None
    current = variant_in_url if variant_in_url in VARIANTS else current_variant(request)
    # a course of every variant (the comparison course) is not a page of the visitor's variant
    all_variants = variant_in_url is not None and variant_in_url not in VARIANTS

    def link(name: str) -> str:
        if match and variant_in_url is not None and match.view_name != "board_move":
            try:
                return reverse(match.view_name, kwargs={**match.kwargs, "variant": name})
            except NoReverseMatch:
                pass
        return f"{reverse('home')}?variant={name}"

    return {
        "variants": list(VARIANTS.values()),
        "current_variant": VARIANTS[current],
        "all_variants_page": all_variants,
        "variant_links": [
            (v, link(v.name), v.name == current and not all_variants) for v in VARIANTS.values()
        ],
    }
