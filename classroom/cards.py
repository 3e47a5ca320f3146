"""The passwords of new login cards, sealed while they wait for the teacher's one look.

A worker makes the children's accounts (``classroom.tasks.make_student_accounts``) and the
teacher's page shows their passwords once, when the job is done. Between the two they wait in the
job's result, encrypted (Fernet: AES in CBC mode with an HMAC, from ``cryptography``) with a key
made from ``SECRET_KEY`` and the job's id: a copy of the database alone, or a backup taken
meanwhile, holds no password in clear. The page takes them out of the job as it shows them
(``Classroom.take_login_cards``), and a job whose cards were never looked at loses them after
``CARDS_KEPT`` (``forget_old_cards``).

>>> token = seal(["abcd-efgh-23"], "a-job")
>>> unseal(token, "a-job")
['abcd-efgh-23']
>>> unseal(token, "another-job") is None
True
"""

from __future__ import annotations

import base64
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.utils.crypto import salted_hmac

#: the purpose the keys are made for (salted_hmac's salt)
KEY_SALT = "classroom.cards.passwords"


def _fernet(job_id: object) -> MultiFernet:
    """The job's key from ``SECRET_KEY`` (which seals), and from each of
    ``SECRET_KEY_FALLBACKS`` (which still open what was sealed before a key was rotated)."""
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    keys = [
        base64.urlsafe_b64encode(
            salted_hmac(KEY_SALT, str(job_id), secret, algorithm="sha256").digest()
        )
        for secret in secrets
    ]
    return MultiFernet([Fernet(key) for key in keys])


def seal(passwords: list[str], job_id: object) -> str:
    """``passwords`` encrypted for the job ``job_id`` (a text to keep in the job's result)."""
    return _fernet(job_id).encrypt(json.dumps(passwords).encode()).decode("ascii")


def unseal(token: str, job_id: object) -> list[str] | None:
    """The passwords ``seal`` encrypted for ``job_id``; None when the token is not one of this
    job's (another job's, altered, or sealed with a key no longer among the site's)."""
    try:
        return json.loads(_fernet(job_id).decrypt(token.encode("ascii")))
    except (InvalidToken, ValueError):
        return None
