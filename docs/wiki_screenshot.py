"""Take the screenshot of a wiki page that docs/wiki.md shows (docs/wiki-page.png) with Debian's Chromium.

    .venv/bin/python docs/wiki_screenshot.py --data data [--page /rules/edison/rule-10?as=html]

Serves the app in-process over the built KB in `--data` (the hash embedder: pages need no model)
and photographs the page at a phone's width (390 CSS px, 2× pixels).
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from api.app import create_app
from api.runtime import load_runtime
from kb.config import Settings

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a built KB (ygo-rulings ingest)")
    parser.add_argument("--page", default="/rules/edison/rule-10?as=html")
    parser.add_argument("--out", type=Path, default=HERE / "wiki-page.png")
    parser.add_argument("--width", type=int, default=390)
    parser.add_argument("--height", type=int, default=844)
    parser.add_argument("--full", action="store_true", help="the whole page, not one screen")
    args = parser.parse_args()

    runtime = load_runtime(Settings.from_env({}, data_dir=args.data, embedder="hash"))
    server = uvicorn.Server(
        uvicorn.Config(create_app(runtime.service), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise SystemExit("the server did not start")
        thread.join(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            context = browser.new_context(
                viewport={"width": args.width, "height": args.height},
                device_scale_factor=2,
                is_mobile=args.width < 600,
                color_scheme="light",
                locale="pt-BR",
            )
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}{args.page}")
            page.screenshot(path=str(args.out), full_page=args.full)
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
        runtime.service.close()
    print(args.out)


if __name__ == "__main__":
    main()
