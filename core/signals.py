"""What ``core`` tells the apps that keep a signed-in user's choices.

``core`` imports no app (a test walks the imports); when a signed-in user chooses a variant or a
language, it sends ``preferences_chosen`` with the user and the choices as keyword arguments
(``preferred_variant=...``, ``language=...``), and ``accounts`` keeps them in the profile::

    preferences_chosen.send(sender=None, user=request.user, language="cs")

The language switcher also keeps its choice in the session (:data:`CHOSEN_LANGUAGE`): a visitor
who chose a language and then logs in keeps it, and the account takes it (``accounts.signals``),
as lichess does; a log-in without a choice in the session brings the account's language.
"""

from __future__ import annotations

from django.dispatch import Signal

preferences_chosen = Signal()

#: the session key of the language chosen with the switcher in this session
CHOSEN_LANGUAGE = "dama_language"
