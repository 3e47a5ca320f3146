"""The site's password hasher: Argon2id at the cost OWASP's Password Storage Cheat Sheet
recommends as its minimum, which a class logging in at once can bear.

Django's own ``Argon2PasswordHasher`` asks 100 MiB and 8 lanes a hash (about 0.2 s of CPU here),
and its default PBKDF2 one a million SHA-256 rounds (about 0.3 s, 0.5 s on a busy server): a class
of 30 logging in within ten seconds then holds both cores of a small server for most of those
seconds, and every other page waits (``docs/benchmarks/accounts.md``). OWASP's recommendation
for Argon2id is 19 MiB of memory, 2 passes and 1 lane (or its equals, e.g. 46 MiB and 1 pass):
about 20 ms of one core here, so a class's log-ins cost a few hundred milliseconds of CPU.

The hasher keeps Django's name ``argon2``, so that Django finds it for every Argon2 hash, and it
is listed first in ``PASSWORD_HASHERS`` (``dama_learn/settings.py``), the older hashers after it:
an account whose hash is PBKDF2 (every account made before) or Argon2 with other parameters gets
a new hash at its next log-in (``django.contrib.auth.hashers.check_password``).
"""

from __future__ import annotations

from django.contrib.auth.hashers import Argon2PasswordHasher

#: OWASP's minimum for Argon2id: memory in KiB (19 MiB), passes, lanes
OWASP_MEMORY_KIB = 19 * 1024
OWASP_PASSES = 2
OWASP_LANES = 1


class SiteArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id with 19 MiB, 2 passes, 1 lane (OWASP's recommended minimum)."""

    memory_cost = OWASP_MEMORY_KIB
    time_cost = OWASP_PASSES
    parallelism = OWASP_LANES
