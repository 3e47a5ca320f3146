"""The site's endgame databases: the directory from the settings, the task that builds them."""

from __future__ import annotations

from pathlib import Path

from dama import Board


def test_build_task_builds_a_material_into_the_sites_directory_once(
    settings: object, tmp_path: Path
) -> None:
    from core.board import endgame_tables
    from core.tasks import deep_build_endgames

    settings.DAMA_ENDGAMES_DIR = tmp_path  # type: ignore[attr-defined]
    board = Board("czech", "W:WK29:BK4")
    assert endgame_tables().probe(board) is None
    assert deep_build_endgames("czech", "KvK") == ["KvK"]
    assert (tmp_path / "czech" / "KvK.egdb").is_file()
    assert deep_build_endgames("czech", "KvK") == []  # idempotent: already there
    assert endgame_tables().probe(board) is not None


def test_engine_gets_the_settings_directory() -> None:
    """core hands the directory to the engine ($DAMA_ENDGAMES): here the tests' empty one."""
    import os

    from django.conf import settings

    from dama.endgames import default_tables

    assert os.environ["DAMA_ENDGAMES"] == str(settings.DAMA_ENDGAMES_DIR)
    assert default_tables().probe(Board("czech", "W:WK29:BK4")) is None
