"""``python -m dama``: the command line (:mod:`dama.cli`)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
