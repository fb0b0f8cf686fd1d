"""Run the site with waitress and tell the player which address to open on the phone."""
from __future__ import annotations

import io
import logging
import socket

import qrcode
import waitress

from . import create_app

log = logging.getLogger(__name__)

WILDCARD = {"0.0.0.0", "::", ""}


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other phones on the network can reach (loopback last,
    as a fallback when there is no network)."""
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # no packet is sent; this picks the outgoing interface
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    try:
        for address in socket.gethostbyname_ex(socket.gethostname())[2]:
            if address not in found and not address.startswith("127."):
                found.append(address)
    except OSError:
        pass
    return [a for a in found if not a.startswith("127.")] or ["127.0.0.1"]


def site_urls(host: str, port: int) -> list[str]:
    hosts = lan_addresses() if host in WILDCARD else [host]
    return [f"http://{h}:{port}/" for h in hosts]


def qr_text(url: str) -> str:
    """The URL as a QR code drawn with text block characters, for a terminal."""
    code = qrcode.QRCode(border=2)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()


def serve(host: str, port: int, profile: str | None = None) -> None:
    """Serve the site on ``host:port`` until interrupted, after printing where to find it;
    photos are read with the calibration ``profile`` (a bundled profile's name or a profile
    file) where the phone names none."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    app = create_app()
    if profile is not None:
        app.config["PROFILE"] = profile
    urls = site_urls(host, port)
    print("citycam is running. On a phone on the same network, open:")
    for url in urls:
        print(f"  {url}")
    print(qr_text(urls[0]))
    print(f"Games are kept in {app.config['DATABASE']}. Stop with Ctrl+C.", flush=True)
    waitress.serve(app, host=host, port=port, threads=8, max_request_body_size=64 * 1024 * 1024)
