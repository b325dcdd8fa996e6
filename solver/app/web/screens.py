"""The web pages served in this process and a headless Chromium on them, for the scripts
that take screenshots (Debian's ``chromium`` and ``chromium-driver``; selenium, from the
``[test]`` extra, is imported only when a browser starts)."""

from __future__ import annotations

import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from .app import COMPILE_WAIT, create_app
from .process import free_port

__all__ = ["served_browser", "CHROMIUM_FLAGS"]

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--window-size=1280,900", "--hide-scrollbars")


@contextmanager
def served_browser(*, workers: int = 1, compile_wait: float = COMPILE_WAIT) -> Iterator[tuple[object, str]]:
    """``(driver, url)``: a uvicorn server of :func:`~.app.create_app` in a thread on a
    free loopback port, and a headless Chromium driver (selenium) with a fresh profile;
    both stopped on leaving."""
    import uvicorn
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(workers=workers, compile_wait=compile_wait),
                                           host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    profile = tempfile.TemporaryDirectory(prefix="meridians-screens-")
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile.name}",):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        yield driver, f"http://127.0.0.1:{port}"
    finally:
        driver.quit()
        profile.cleanup()
        server.should_exit = True
