"""scripts/web_screens.py writes each screenshot atomically, and a file it cannot write is one
line (the browser run itself is not tested here: it takes minutes of engine time)."""

import pytest

from conftest import load_script

pytest.importorskip("selenium")


class _Browser:
    """A stand-in for the selenium driver: its screenshot is fixed bytes."""

    def get_screenshot_as_png(self) -> bytes:
        return b"\x89PNG\r\n\x1a\n picture"


def test_a_screenshot_is_written_whole_or_is_one_line(tmp_path, monkeypatch):
    script = load_script("web_screens", monkeypatch, tmp_path)
    path = tmp_path / "screens" / "board-3-4.png"
    path.parent.mkdir()
    path.write_bytes(b"old")
    script.shot(_Browser(), path)
    assert path.read_bytes() == _Browser().get_screenshot_as_png()
    assert [p.name for p in path.parent.iterdir()] == ["board-3-4.png"]  # no temporary file left
    (tmp_path / "plain").write_text("a file, not a folder")
    with pytest.raises(SystemExit) as e:
        script.shot(_Browser(), tmp_path / "plain" / "play.png")
    message = str(e.value)  # the file system's word for it: "File exists" on Linux
    assert message.startswith(f"web_screens: cannot write {tmp_path / 'plain' / 'play.png'}: ") and "\n" not in message
    assert "Errno" not in message and not (tmp_path / "plain").is_dir()
