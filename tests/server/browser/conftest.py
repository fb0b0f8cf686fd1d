"""Browser tests: the real app on a free port in a thread, driven by headless Chromium at a
phone's viewport (Debian's Chromium; `make test` installs it)."""
import threading

import pytest
from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from server import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    instance = tmp_path_factory.mktemp("instance")
    app = create_app({"DATABASE": str(instance / "citycam.sqlite"), "PHOTO_DIR": str(instance / "photos")})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server, accept_downloads=True, **PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(10_000)
    yield page
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


@pytest.fixture
def no_sideways_scroll():
    """A check that the page fits the phone's width (nothing to scroll sideways)."""
    def check(page):
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["viewport"]["width"], f"{page.url} is {width} px wide on a 390 px phone"
    return check
