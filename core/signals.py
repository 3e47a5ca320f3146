"""What ``core`` tells the apps that keep a signed-in user's choices.

``core`` imports no app (a test walks the imports); when a signed-in user chooses a variant or a
language, it sends ``preferences_chosen`` with the user and the choices as keyword arguments
(``preferred_variant=...``, ``language=...``), and ``accounts`` keeps them in the profile::

    preferences_chosen.send(sender=None, user=request.user, language="cs")
"""

from __future__ import annotations

from django.dispatch import Signal

preferences_chosen = Signal()
