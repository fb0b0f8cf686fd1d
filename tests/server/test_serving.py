"""`serve`: prints where to open the site and a QR code, then runs waitress."""
import qrcode
import waitress

from server import serving


def test_serve_prints_addresses_and_qr_code_then_runs_waitress(monkeypatch, capsys, tmp_path):
    started = {}
    monkeypatch.setattr(waitress, "serve", lambda app, **kw: started.update(app=app, **kw))
    monkeypatch.setattr(serving, "lan_addresses", lambda: ["192.168.1.23"])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(serving, "create_app", lambda: _app(tmp_path))
    serving.serve("0.0.0.0", 8123)
    out = capsys.readouterr().out
    assert "http://192.168.1.23:8123/" in out
    assert "█" in out or "▀" in out  # the QR code, in block characters
    assert (started["host"], started["port"]) == ("0.0.0.0", 8123)
    assert started["app"].name == "server"


def test_a_named_host_is_printed_as_given():
    assert serving.site_urls("127.0.0.1", 8000) == ["http://127.0.0.1:8000/"]


def test_lan_addresses_are_never_empty():
    addresses = serving.lan_addresses()
    assert addresses and all(a.count(".") == 3 for a in addresses)


def test_qr_code_encodes_the_url():
    text = serving.qr_text("http://10.0.0.2:8000/")
    code = qrcode.QRCode(border=2)
    code.add_data("http://10.0.0.2:8000/")
    code.make()
    assert len(text.splitlines()) == (code.modules_count + 4 + 1) // 2


def _app(tmp_path):
    from server import create_app
    return create_app({"DATABASE": str(tmp_path / "c.sqlite"), "PHOTO_DIR": str(tmp_path / "p")})
