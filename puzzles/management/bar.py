"""A progress bar on plain stdout for the puzzle commands: ``\\r[#####-----] 12/40 note``."""

from __future__ import annotations

from typing import Any


class ProgressBar:
    def __init__(self, out: Any, total: int, width: int = 30) -> None:
        """``out``: a file, or a command's ``self.stdout`` (its automatic newline is turned off)."""
        self.out = out
        self.total = total
        self.width = width
        self.done = 0
        self._last_len = 0

    def text(self, done: int, note: str = "") -> str:
        filled = self.width if self.total <= 0 else self.width * min(done, self.total) // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        return f"[{bar}] {done}/{self.total}" + (f" {note}" if note else "")

    def show(self, done: int | None = None, note: str = "") -> None:
        if done is not None:
            self.done = done
        line = self.text(self.done, note)
        pad = " " * max(0, self._last_len - len(line))
        self._write(f"\r{line}{pad}")
        self._last_len = len(line)

    def finish(self, note: str = "") -> None:
        self.show(note=note)
        self._write("\n")

    def _write(self, text: str) -> None:
        if hasattr(self.out, "ending"):  # django.core.management.base.OutputWrapper
            self.out.write(text, ending="")
        else:
            self.out.write(text)
        self.out.flush()
