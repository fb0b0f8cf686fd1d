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


def test_waitress_answers_a_60_mb_upload_with_json_413_and_keeps_serving(tmp_path):
    import http.client
    import json
    import threading

    server = waitress.create_server(_app(tmp_path), host="127.0.0.1", port=0, max_request_body_size=64 * 1024 * 1024)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        boundary = "citycamboundary"
        head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"big.jpg\"\r\n"
                "Content-Type: image/jpeg\r\n\r\n").encode()
        body = head + b"\0" * (60 * 1024 * 1024) + f"\r\n--{boundary}--\r\n".encode()
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=60)
        conn.request("POST", "/api/detect", body=body,
                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = conn.getresponse()
        assert response.status == 413 and "too large" in json.loads(response.read())["error"]
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
        conn.request("GET", "/api/rules")
        response = conn.getresponse()
        assert response.status == 200 and len(json.loads(response.read())) == 18
        conn.close()
    finally:
        server.task_dispatcher.shutdown()
        server.close()
